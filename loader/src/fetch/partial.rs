//! A body on its way into the partial file: the receiving thread fills large buffers and hands
//! them through a bounded channel to a second thread that appends them to the file and hashes
//! them (SHA-256), so that on two cores writing and hashing overlap with receiving and the file
//! is never read back to be hashed. The hash covers the whole file: when a transfer resumes, the
//! bytes kept from before are hashed first, while the body starts to arrive.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};

use sha2::{Digest, Sha256};

/// The size of each buffer handed on: few channel sends and `write` calls per file.
pub const BUFFER: usize = 1 << 20;
/// Full buffers waiting for the writer: enough to ride out a slow write, little memory.
const IN_FLIGHT: usize = 4;

/// The receiving end's handle on the writing thread.
pub struct Feed {
    full: SyncSender<Vec<u8>>,
    /// Buffers the writer is done with, to be filled again (no allocation per buffer).
    spare: Receiver<Vec<u8>>,
}

impl Feed {
    /// A buffer of [`BUFFER`] bytes to fill.
    pub fn buffer(&self) -> Vec<u8> {
        let mut buf = self.spare.try_recv().unwrap_or_default();
        buf.resize(BUFFER, 0);
        buf
    }

    /// Hands a filled buffer to the writer; false if the writer has stopped (its error says
    /// why).
    pub fn send(&self, buf: Vec<u8>) -> bool {
        self.full.send(buf).is_ok()
    }
}

/// Runs `receive` with a feed into the partial file at `path`, which keeps its first `from`
/// bytes. Gives what `receive` gave and, once every buffer fed is written, the SHA-256 (hex) of
/// the whole file, or the error that stopped the writer (the cause of a failed `send`).
pub fn write_while<T>(
    path: &Path,
    from: u64,
    receive: impl FnOnce(Feed) -> T,
) -> (T, io::Result<String>) {
    let (full_tx, full_rx) = mpsc::sync_channel(IN_FLIGHT);
    let (spare_tx, spare_rx) = mpsc::channel();
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || write_and_hash(path, from, &full_rx, &spare_tx));
        let received = receive(Feed {
            full: full_tx,
            spare: spare_rx,
        });
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writing thread stopped")));
        (received, written)
    })
}

/// The writing thread: hashes the kept bytes, then appends and hashes every buffer until the
/// feed is dropped.
fn write_and_hash(
    path: &Path,
    from: u64,
    full: &Receiver<Vec<u8>>,
    spare: &Sender<Vec<u8>>,
) -> io::Result<String> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    file.set_len(from)?;
    let mut hasher = Sha256::new();
    hash_kept(&mut file, from, &mut hasher)?;
    for buf in full {
        file.write_all(&buf)?;
        hasher.update(&buf);
        let _ = spare.send(buf); // the receiver may be done already
    }
    Ok(crate::input::sha256_hex(hasher))
}

/// Hashes the first `from` bytes of the file, leaving it positioned at their end.
fn hash_kept(file: &mut File, from: u64, hasher: &mut Sha256) -> io::Result<()> {
    if crate::input::hash_into(file.take(from), hasher)? < from {
        return Err(io::Error::other(
            "the partial file shrank while it was read",
        ));
    }
    Ok(())
}
