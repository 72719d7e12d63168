//! Stored bytes from the file to the socket with `sendfile`, through actix's HTTP/1 dispatcher,
//! which owns the socket and copies every body chunk into its write buffer.
//!
//! A connection's socket is wrapped in a [`Wire`]. A body with a range of a stored file yields,
//! instead of the file's bytes, a marker of [`MARKER_LEN`] bytes that no other bytes can be
//! (a random per-connection prefix and a count) and queues a [`Splice`]: the file, its offset
//! and length. Everything the dispatcher writes goes through [`Wire::poll_write`]: bytes before
//! a queued marker are written as they are; at the marker, the file's range goes out with
//! `sendfile(2)` (however many writes a slow client takes), and then the marker counts as
//! written. So the head, the other parts of a `multipart/byteranges` body and pipelined
//! responses keep their order on the wire, and the file's bytes never enter this process.
//!
//! Such a body's length is not the bytes it yields: its response says `Content-Length` itself
//! and asks the encoder to write the body as it comes (`no_chunking`). A marker never written
//! (a response dropped) is skipped when a later one is found.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll};

pub mod listen;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The bytes of a marker: a connection's random prefix, then the splice's number.
pub const MARKER_LEN: usize = 32;

/// A range of a file to send where its marker is.
struct Splice {
    marker: [u8; MARKER_LEN],
    file: Arc<File>,
    offset: u64,
    left: u64,
}

/// The splices of one connection, queued by its bodies and sent by its [`Wire`].
#[derive(Clone)]
pub struct Splices(Rc<RefCell<Queue>>);

struct Queue {
    prefix: [u8; 16],
    next: u128,
    waiting: VecDeque<Splice>,
}

impl Splices {
    fn new() -> Splices {
        Splices(Rc::new(RefCell::new(Queue {
            prefix: random_prefix(),
            next: 0,
            waiting: VecDeque::new(),
        })))
    }

    /// Queues `len` bytes of `file` from `offset`, and gives the marker that stands for them.
    pub fn queue(&self, file: Arc<File>, offset: u64, len: u64) -> [u8; MARKER_LEN] {
        let mut queue = self.0.borrow_mut();
        let mut marker = [0; MARKER_LEN];
        marker[..16].copy_from_slice(&queue.prefix);
        marker[16..].copy_from_slice(&queue.next.to_le_bytes());
        queue.next += 1;
        queue.waiting.push_back(Splice {
            marker,
            file,
            offset,
            left: len,
        });
        marker
    }
}

/// 16 bytes no client can guess: the standard library's random hash keys, seeded by the OS.
fn random_prefix() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut out = [0; 16];
    for half in out.chunks_mut(8) {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(0x5eed);
        half.copy_from_slice(&hasher.finish().to_le_bytes());
    }
    out
}

/// A connection's socket, sending queued splices where their markers are.
pub struct Wire {
    io: TcpStream,
    splices: Splices,
    /// Whether the socket is corked for a large range (see [`CORK_ABOVE`]).
    corked: bool,
}

/// A range longer than this is sent with the socket corked (`TCP_CORK`, as nginx's
/// `tcp_nopush` does with `sendfile`): the connection has `TCP_NODELAY`, so that a small answer
/// goes out at once, and without the cork each `sendfile` call that fills the socket's buffer
/// would push its tail as a short segment. Measured on 1 MiB ranges (BENCHMARKS.md).
const CORK_ABOVE: u64 = 256 * 1024;

impl Wire {
    pub fn new(io: TcpStream) -> Wire {
        Wire {
            io,
            splices: Splices::new(),
            corked: false,
        }
    }

    /// The queue that this connection's bodies put their splices in.
    pub fn splices(&self) -> Splices {
        self.splices.clone()
    }

    /// Where in `buf` the first queued marker is; splices queued before it were never written
    /// (their responses dropped) and are forgotten.
    fn next_marker(&self, buf: &[u8]) -> Option<usize> {
        let mut queue = self.splices.0.borrow_mut();
        let (at, found) = (queue.waiting.iter().enumerate())
            .filter_map(|(i, s)| Some((memchr::memmem::find(buf, &s.marker)?, i)))
            .min()?;
        queue.waiting.drain(..found);
        Some(at)
    }

    /// Sends the first queued splice, whose marker starts the buffer: `Ready` once it is all
    /// sent, the marker then written.
    fn poll_splice(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        loop {
            let (file, offset, left) = {
                let queue = self.splices.0.borrow();
                let splice = queue.waiting.front().expect("a splice at its marker");
                (splice.file.clone(), splice.offset, splice.left)
            };
            let socket = self.io.as_raw_fd();
            if left == 0 {
                self.splices.0.borrow_mut().waiting.pop_front();
                if std::mem::take(&mut self.corked) {
                    cork(socket, false)?;
                }
                return Poll::Ready(Ok(MARKER_LEN));
            }
            if !self.corked && left > CORK_ABOVE {
                cork(socket, true)?;
                self.corked = true;
            }
            std::task::ready!(self.io.poll_write_ready(cx))?;
            let sent = self.io.try_io(tokio::io::Interest::WRITABLE, || {
                send_file(socket, &file, offset, left)
            });
            match sent {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::UnexpectedEof.into())),
                Ok(n) => {
                    let mut queue = self.splices.0.borrow_mut();
                    let splice = queue.waiting.front_mut().expect("the splice being sent");
                    splice.offset += n as u64;
                    splice.left -= n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

/// Sets or clears `TCP_CORK` on `socket`: while set, the kernel sends only full segments;
/// clearing it sends what is held.
fn cork(socket: i32, on: bool) -> io::Result<()> {
    let value: libc::c_int = on.into();
    // SAFETY: the socket is open (owned by the `Wire`), and the option's value is a live
    // `c_int` of the length given.
    let set = unsafe {
        libc::setsockopt(
            socket,
            libc::IPPROTO_TCP,
            libc::TCP_CORK,
            std::ptr::from_ref(&value).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    match set {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// One `sendfile(2)` of up to `left` bytes of `file` from `offset` to `socket`.
fn send_file(socket: i32, file: &File, offset: u64, left: u64) -> io::Result<usize> {
    let mut at = libc::off_t::try_from(offset).map_err(io::Error::other)?;
    // The kernel sends at most about 2 GiB a call.
    let count = left.min(1 << 30) as usize;
    // SAFETY: both descriptors are open for the call (the socket is owned by `Wire`, the file
    // by the splice), and `at` is a valid offset for the kernel to read and advance.
    let sent = unsafe { libc::sendfile(socket, file.as_raw_fd(), &mut at, count) };
    match sent {
        -1 => Err(io::Error::last_os_error()),
        n => Ok(n as usize),
    }
}

impl AsyncRead for Wire {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Wire {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let queued = !self.splices.0.borrow().waiting.is_empty();
        match queued.then(|| self.next_marker(buf)).flatten() {
            Some(0) => self.poll_splice(cx),
            Some(at) => Pin::new(&mut self.io).poll_write(cx, &buf[..at]),
            None => Pin::new(&mut self.io).poll_write(cx, buf),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The bytes a request's markers stood for, beyond the markers themselves: what the metrics
/// add to the bytes its body yielded, to count the bytes sent.
#[derive(Clone, Default)]
pub struct SplicedBytes(Rc<std::cell::Cell<u64>>);

impl SplicedBytes {
    /// The count of `req`, kept with it.
    pub fn of(req: &actix_web::HttpRequest) -> SplicedBytes {
        let mut extensions = actix_web::HttpMessage::extensions_mut(req);
        extensions.get_or_insert_with(SplicedBytes::default).clone()
    }

    /// A marker yielded for `len` bytes.
    pub fn add(&self, len: u64) {
        let more = len.saturating_sub(MARKER_LEN as u64);
        self.0.set(self.0.get() + more);
    }

    pub fn total(&self) -> u64 {
        self.0.get()
    }
}
