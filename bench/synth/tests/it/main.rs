//! The file checks of the generator: releases generated through the public API, read back and
//! checked against the catalogue, the seed and each other.

mod common;
mod release;
mod sample;
