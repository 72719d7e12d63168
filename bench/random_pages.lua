-- wrk script: each request asks for one of the paths listed in a file (one a line), at random.
--   wrk ... -s bench/random_pages.lua http://HOST:PORT/ -- PATHS_FILE
local paths = {}
function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
end
function request() return wrk.format("GET", paths[math.random(#paths)]) end
