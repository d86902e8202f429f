//! What both directions share: the arithmetic of MuJoCo's model compiler ([`arith`]), on plain
//! arrays and in the compiler's order of operations. The reader computes frames, inertias and
//! mesh properties with it (`import::compiler`); the writer uses its eigen decomposition to say
//! how MuJoCo will diagonalise an inertia it writes (`export::lower`) and its smallest value
//! (`MINVAL`) as the least mass and moment MuJoCo accepts on a moving body.
//!
//! Learnt from MuJoCo's XML reference and read from its compiler's source
//! (`src/user/user_util.cc` at the commit of the corpus), then written here; each function
//! names the compiler step it follows.

pub(crate) mod arith;
