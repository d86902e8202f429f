//! Multibody dynamics on the mbconv IR (work in progress).
