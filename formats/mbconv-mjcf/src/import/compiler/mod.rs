//! What MuJoCo's model compiler does with the numbers of an MJCF file, apart from XML, as the
//! reader needs it: orientations and angle units ([`orientation`]), default classes
//! ([`defaults`]), mass properties from geoms and `<inertial>` ([`inertia`]) and meshes (files,
//! convex hull, volume and inertia: [`mesh`]). The arithmetic under them, which the writer
//! shares, is `crate::spec::arith`.
//!
//! These are learnt from MuJoCo's XML reference and read from its compiler's source
//! (`src/user/user_objects.cc`, `src/user/user_util.cc`, `src/xml/xml_native_reader.cc` at
//! the commit of the corpus), then written here; each function names the compiler step it
//! follows.

pub(crate) mod defaults;
pub(crate) mod inertia;
pub(crate) mod mesh;
pub(crate) mod orientation;
