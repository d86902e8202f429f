//! Meshes as MuJoCo 4.0's compiler uses them for mass and placement: the files its decoders
//! read ([`decode`]), the convex hull it takes for meshes given as vertices only and for
//! `inertia="convex"` ([`hull`]), and the volume, centre, principal axes and equivalent
//! inertia box it computes ([`mass`]), from `src/user/user_mesh.cc` and the STL and OBJ
//! decoder plugins at the corpus commit, read for their semantics.
//!
//! The compiler moves every mesh into its own inertial frame (origin at the centre of mass,
//! axes along the principal axes) and offsets each mesh geom's frame by that frame; the mesh
//! still sits where the file's coordinates, its `scale`, `refpos`/`refquat` and the geom's
//! written pose put it, so the IR keeps the file's coordinates and the written pose, and only
//! the mass is taken at the offset frame.

pub(crate) mod decode;
pub(crate) mod hull;
pub(crate) mod mass;
