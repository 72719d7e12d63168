//! Whatever the loader is pointed at (`--db` a folder, a device, a FIFO, a CSV file or one of
//! the inputs; links beside the served file; empty folders and archives; less data than
//! before; FIFOs, devices and link loops among the inputs), the served file is safe and every
//! load finishes.

use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;

// --- The served file is safe whatever the arguments -----------------------------------------

#[test]
fn an_empty_folder_or_zip_never_replaces_the_served_file() {
    let s = Sandbox::new();
    s.load(&[], &[])
        .refused(&["no CSV file found in", "inputs"])
        .quick();
    let empty_zip = s.input("empty.zip");
    zip::ZipWriter::new(std::fs::File::create(&empty_zip).unwrap())
        .finish()
        .unwrap();
    s.load(&[], &[&empty_zip])
        .refused(&["no CSV file found in", "empty.zip"]);
    let folders = s.input("folders.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&folders).unwrap());
    z.add_directory("2024/", zip::write::SimpleFileOptions::default())
        .unwrap();
    z.finish().unwrap();
    s.load(&[], &[&folders])
        .refused(&["no CSV file found in", "folders.zip"]);
}

#[test]
fn the_db_is_never_an_input_a_folder_a_device_or_someone_elses_file() {
    let s = Sandbox::new();
    let csv = s.write("cp.csv", sample_file("count_points.csv"));
    // `--db cp.csv cp.csv`, and a link to it, and the same through another spelling.
    s.load_into(&csv, &[], &[&csv])
        .refused(&["cp.csv", "not a database built by roadtraffic-load"]);
    let link = s.input("link.csv");
    symlink(&csv, &link).unwrap();
    s.load_into(&csv, &[], &[&link]).refused(&["cp.csv"]);
    // A database of ours given as an input of itself.
    let ours = s.root.join("served/roadtraffic.db");
    let dotted = s.root.join("served/./roadtraffic.db");
    s.load_into(&dotted, &[], &[&ours])
        .refused(&["roadtraffic.db"]);
    s.load_into(&s.inputs, &[], &[&csv])
        .refused(&["inputs", "a directory"]);
    let fifo = s.root.join("served/fifo");
    mkfifo(&fifo);
    s.load_into(&fifo, &[], &[&csv])
        .refused(&["fifo", "a FIFO"]);
    let out = s.load_into(Path::new("/dev/null"), &[], &[&csv]);
    out.refused(&["/dev/null", "a character device"]);
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device_());
}

trait IsCharDevice {
    fn is_char_device_(&self) -> bool;
}
impl IsCharDevice for std::fs::FileType {
    fn is_char_device_(&self) -> bool {
        use std::os::unix::fs::FileTypeExt;
        self.is_char_device()
    }
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[test]
fn links_beside_the_db_are_never_written_through() {
    let s = Sandbox::new().with_sample();
    let victim = s.root.join("victim.txt");
    let before = std::fs::read(&victim).unwrap();
    // A link where older versions built the new file, and one where the lock is taken.
    symlink(&victim, s.root.join("served/roadtraffic.db.partial")).unwrap();
    s.load(&[], &[]).loaded();
    assert_eq!(std::fs::read(&victim).unwrap(), before);
    let lock = s.root.join("served/.roadtraffic.db.lock");
    symlink(&victim, &lock).unwrap();
    s.load(&[], &[]).refused(&[".roadtraffic.db.lock"]);
    assert_eq!(std::fs::read(&victim).unwrap(), before);
}

#[test]
fn less_data_never_replaces_more_without_saying_so() {
    let s = Sandbox::new();
    let la = s.write(LA, sample_file(LA));
    let out = s.load(&[], &[&la]);
    out.refused(&["raw_counts", "--allow-shrink", "before", "after"]);
    s.load(&["--allow-shrink"], &[&la]).loaded();
}

// --- Only regular files are read; everything finishes -------------------------------------

#[test]
fn fifos_devices_and_loops_are_never_read() {
    let s = Sandbox::new().with_sample();
    let fifo = s.input("pipe.csv");
    mkfifo(&fifo);
    s.load(&[], &[&fifo])
        .refused(&["pipe.csv: not a regular file (a FIFO)"])
        .quick();
    s.load(&[], &[Path::new("/dev/zero")])
        .refused(&["/dev/zero: not a regular file"])
        .quick();
    // Inside a folder they are skipped and listed; a link loop is not followed.
    symlink(".", s.input("self")).unwrap();
    let out = s.load_into(&s.db, &[], &[]);
    out.loaded();
    let noisy = run_loader(
        &[
            "--db".into(),
            s.root.join("served/other.db").into(),
            s.inputs.clone().into(),
        ],
        &s.tmp,
    );
    assert_eq!(noisy.code, Some(0), "{}", noisy.stderr);
    assert!(
        noisy.stderr.contains("pipe.csv: a FIFO, not read")
            && noisy.stderr.contains("a symbolic link loop"),
        "{}",
        noisy.stderr
    );
    std::fs::remove_file(s.root.join("served/other.db")).unwrap();
}

#[test]
fn the_same_file_twice_is_read_once() {
    let s = Sandbox::new().with_sample();
    let raw = s.input(RAW);
    let again = s.inputs.join(".").join(RAW);
    s.load(&[], &[&s.inputs, &raw, &again]).loaded();
}
