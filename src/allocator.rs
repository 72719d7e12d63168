//! What mimalloc (both binaries' allocator) keeps of the memory it was given: without this,
//! freed memory stays resident in 2 MB huge pages, which both the server's soak and the
//! loader's peak showed (BENCHMARKS.md). Each binary calls [`bound_memory`] first thing.

/// mimalloc's purge delay option: its index in `mi_option_t` of the mimalloc that
/// libmimalloc-sys 0.1.49 builds (v3), which names only some options; and its default there.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const MI_DEFAULT_PURGE_DELAY_MS: std::ffi::c_long = 1000;
/// How long freed memory stays with mimalloc before it goes back to the system.
const PURGE_DELAY_MS: std::ffi::c_long = 100;

/// Bounds what the allocator keeps. Under the server's soak of BENCHMARKS.md the resident memory was
/// 170 MB, 110 MB of it mimalloc's, with transparent huge pages (mimalloc asks for them: a 2 MB
/// page stays resident while any 4 KB of it is used) and freed memory kept for a second. Without
/// huge pages and with a 100 ms purge delay it stays under 100 MB (BENCHMARKS.md), for a cost in
/// throughput within the noise. The environment has the last word: MIMALLOC_ALLOW_THP=1 or
/// MIMALLOC_PURGE_DELAY=N leave the setting alone.
pub fn bound_memory() {
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: plain integer arguments; the flag only stops the kernel backing this process
        // with huge pages (what MIMALLOC_ALLOW_THP=0 does).
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
    // SAFETY: reading and setting an option by index; a wrong index (another mimalloc) would
    // not hold the purge delay's default, and is then left alone.
    unsafe {
        if libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) == MI_DEFAULT_PURGE_DELAY_MS {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS);
        }
    }
}
