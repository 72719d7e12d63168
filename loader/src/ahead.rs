//! Zip members read ahead: while the rows of one source of a table are parsed, the next small
//! zip member of the table is inflated on the other core. A zip of 60,000 members of 30 KB (the
//! loader fuzz's) spent a third of its load inflating them, one after the other with the parse.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use crate::input::{self, InputSource, ReadAhead};

/// The sources read ahead, in their order: one answer a source.
pub struct Ahead(Option<Receiver<Option<ReadAhead>>>);

impl Ahead {
    /// The next source's bytes if they were read ahead; None to open it as usual. Called once a
    /// source, in the order given to [`reading_ahead`].
    pub fn next(&self) -> Option<ReadAhead> {
        self.0.as_ref()?.recv().ok().flatten()
    }
}

/// Runs `f` while a thread reads `sources` ahead, one source ahead of it (at most three members
/// of 1 MiB in memory: the one being parsed, the one waiting, the one being inflated). A table
/// of fewer than two zip members reads as before, with no thread.
pub fn reading_ahead<T>(sources: &[&InputSource], f: impl FnOnce(&Ahead) -> T) -> T {
    if sources.iter().filter(|s| s.member.is_some()).count() < 2 {
        return f(&Ahead(None));
    }
    std::thread::scope(|scope| {
        let (to_parser, from_reader) = sync_channel(1);
        scope.spawn(move || read_each(sources, &to_parser));
        // The receiver is dropped when `f` ends, early or not: the reader's next send fails
        // and it stops, before the scope waits for it.
        f(&Ahead(Some(from_reader)))
    })
}

fn read_each(sources: &[&InputSource], to_parser: &SyncSender<Option<ReadAhead>>) {
    for source in sources {
        if to_parser.send(input::read_ahead(source)).is_err() {
            return;
        }
    }
}
