//! DART SKEL models <-> mbconv IR (work in progress).
