//! Every release kept (issue 25): three releases made from the sample with known revisions
//! (`fixtures`), kept by the loader (`loader`), served
//! by name (`served`), and revalidated (`revalidated`).

pub mod fixtures;
mod loader;
mod revalidated;
mod served;
