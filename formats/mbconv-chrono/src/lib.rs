//! Chrono YAML models <-> mbconv IR (work in progress).
