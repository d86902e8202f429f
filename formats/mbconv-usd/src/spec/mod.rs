//! What the reader and the writer share: the format's name, the UsdPhysics and UsdGeom
//! attribute names, the schemas' defaults and units, and the `mbconv:` convention that keeps
//! double-precision values beside the schema's 32-bit floats.

use nalgebra::Vector3;

/// The format's name and error-code prefix.
pub(crate) const FORMAT: &str = "usd";

/// The header every `.usda` layer starts with.
pub(crate) const USDA_HEADER: &str = "#usda 1.0";

/// UsdGeom's fallback `metersPerUnit` when a stage does not author one (centimetres).
pub(crate) const FALLBACK_METERS_PER_UNIT: f64 = 0.01;
/// UsdPhysics' fallback `kilogramsPerUnit`.
pub(crate) const FALLBACK_KILOGRAMS_PER_UNIT: f64 = 1.0;
/// Earth gravity, which a `PhysicsScene` with an unauthored (or `-inf`) magnitude means, in m/s².
pub(crate) const EARTH_GRAVITY: f64 = 9.81;
/// The density UsdPhysics assumes when neither a body nor its colliders state one, in kg/m³.
pub(crate) const DEFAULT_DENSITY: f64 = 1000.0;

/// Applied API schema names.
pub(crate) mod api {
    /// A rigid body.
    pub(crate) const RIGID_BODY: &str = "PhysicsRigidBodyAPI";
    /// Mass properties.
    pub(crate) const MASS: &str = "PhysicsMassAPI";
    /// A collider.
    pub(crate) const COLLISION: &str = "PhysicsCollisionAPI";
    /// A drive on a joint axis (multiple-apply: `PhysicsDriveAPI:angular`, `:linear`, ...).
    pub(crate) const DRIVE: &str = "PhysicsDriveAPI";
    /// A physics material (on a `Material` prim bound to colliders).
    pub(crate) const MATERIAL: &str = "PhysicsMaterialAPI";
    /// Pairs of bodies or colliders that do not collide (`physics:filteredPairs`).
    pub(crate) const FILTERED_PAIRS: &str = "PhysicsFilteredPairsAPI";
    /// A limit on a joint axis (multiple-apply: `PhysicsLimitAPI:rotX`, ...).
    pub(crate) const LIMIT: &str = "PhysicsLimitAPI";
    /// The root of an articulation (a reduced-coordinate tree): on a floating tree's root body,
    /// or on the joint that holds a tree to the world.
    pub(crate) const ARTICULATION_ROOT: &str = "PhysicsArticulationRootAPI";
}

/// Attribute and relationship names.
pub(crate) mod attr {
    pub(crate) const UP_AXIS: &str = "upAxis";
    pub(crate) const METERS_PER_UNIT: &str = "metersPerUnit";
    pub(crate) const KILOGRAMS_PER_UNIT: &str = "kilogramsPerUnit";
    pub(crate) const GRAVITY_DIRECTION: &str = "physics:gravityDirection";
    pub(crate) const GRAVITY_MAGNITUDE: &str = "physics:gravityMagnitude";
    pub(crate) const RIGID_BODY_ENABLED: &str = "physics:rigidBodyEnabled";
    pub(crate) const KINEMATIC_ENABLED: &str = "physics:kinematicEnabled";
    pub(crate) const VELOCITY: &str = "physics:velocity";
    pub(crate) const ANGULAR_VELOCITY: &str = "physics:angularVelocity";
    pub(crate) const MASS: &str = "physics:mass";
    pub(crate) const DENSITY: &str = "physics:density";
    pub(crate) const CENTER_OF_MASS: &str = "physics:centerOfMass";
    pub(crate) const DIAGONAL_INERTIA: &str = "physics:diagonalInertia";
    pub(crate) const PRINCIPAL_AXES: &str = "physics:principalAxes";
    pub(crate) const BODY0: &str = "physics:body0";
    pub(crate) const BODY1: &str = "physics:body1";
    pub(crate) const LOCAL_POS0: &str = "physics:localPos0";
    pub(crate) const LOCAL_POS1: &str = "physics:localPos1";
    pub(crate) const LOCAL_ROT0: &str = "physics:localRot0";
    pub(crate) const LOCAL_ROT1: &str = "physics:localRot1";
    pub(crate) const AXIS: &str = "physics:axis";
    pub(crate) const LOWER_LIMIT: &str = "physics:lowerLimit";
    pub(crate) const UPPER_LIMIT: &str = "physics:upperLimit";
    pub(crate) const CONE0: &str = "physics:coneAngle0Limit";
    pub(crate) const CONE1: &str = "physics:coneAngle1Limit";
    pub(crate) const JOINT_ENABLED: &str = "physics:jointEnabled";
    /// Joint armature (rotor inertia), by the schemas that carry it, in reading order.
    pub(crate) const ARMATURE: [&str; 3] = ["newton:armature", "mjc:armature", "physxJoint:armature"];
    /// Coulomb joint friction (a force or torque), by the schemas that carry it.
    pub(crate) const FRICTION: [&str; 2] = ["newton:friction", "mjc:frictionloss"];
    /// Passive joint damping, by the schemas that carry it.
    pub(crate) const PASSIVE_DAMPING: [&str; 2] = ["newton:damping", "mjc:damping"];
    /// PhysX's joint friction coefficient (unitless).
    pub(crate) const PHYSX_JOINT_FRICTION: &str = "physxJoint:jointFriction";
    /// PhysX's maximum joint velocity (degrees per second for an angular joint).
    pub(crate) const MAX_JOINT_VELOCITY: &str = "physxJoint:maxJointVelocity";
    pub(crate) const PHYSICS_BINDING: &str = "material:binding:physics";
    pub(crate) const BINDING: &str = "material:binding";
    pub(crate) const DYNAMIC_FRICTION: &str = "physics:dynamicFriction";
    pub(crate) const STATIC_FRICTION: &str = "physics:staticFriction";
    pub(crate) const RESTITUTION: &str = "physics:restitution";
    pub(crate) const FILTERED_PAIRS: &str = "physics:filteredPairs";
    pub(crate) const FILTERED_GROUPS: &str = "physics:filteredGroups";
    pub(crate) const COLLIDERS_INCLUDES: &str = "collection:colliders:includes";
    pub(crate) const MIN_DISTANCE: &str = "physics:minDistance";
    pub(crate) const MAX_DISTANCE: &str = "physics:maxDistance";
    pub(crate) const DISABLE_GRAVITY: &str = "physxRigidBody:disableGravity";
    pub(crate) const COLLISION_ENABLED: &str = "physics:collisionEnabled";
    pub(crate) const XFORM_OP_ORDER: &str = "xformOpOrder";
    pub(crate) const PURPOSE: &str = "purpose";
    pub(crate) const VISIBILITY: &str = "visibility";
    pub(crate) const DISPLAY_COLOR: &str = "primvars:displayColor";
    pub(crate) const DISPLAY_OPACITY: &str = "primvars:displayOpacity";
    pub(crate) const POINTS: &str = "points";
    pub(crate) const FACE_VERTEX_COUNTS: &str = "faceVertexCounts";
    pub(crate) const FACE_VERTEX_INDICES: &str = "faceVertexIndices";
    /// The original IR name of an item whose prim name had to be made valid.
    pub(crate) const MBCONV_NAME: &str = "mbconv:name";
    /// A joint left out of the articulations (it closes a loop).
    pub(crate) const EXCLUDE_FROM_ARTICULATION: &str = "physics:excludeFromArticulation";
    /// On a rigid body the writer adds as a stand-in for the world (an anchor, welded to the
    /// world, that a tree held to the world hangs from: OpenUSD's articulation parse leaves out
    /// a body whose only joint goes to the world), and on the joints that weld it: this reader
    /// takes the anchor as the world and drops those joints.
    pub(crate) const MBCONV_WORLD: &str = "mbconv:world";
    /// On a body fixed in the world, which the writer welds to an anchor (a kinematic body is
    /// no articulation link in OpenUSD's parse, so a tree hanging from it is cut off).
    pub(crate) const MBCONV_FIXED: &str = "mbconv:fixed";
}

/// Prim type names.
pub(crate) mod prim {
    pub(crate) const SCENE: &str = "PhysicsScene";
    pub(crate) const FIXED: &str = "PhysicsFixedJoint";
    pub(crate) const REVOLUTE: &str = "PhysicsRevoluteJoint";
    pub(crate) const PRISMATIC: &str = "PhysicsPrismaticJoint";
    pub(crate) const SPHERICAL: &str = "PhysicsSphericalJoint";
    pub(crate) const DISTANCE: &str = "PhysicsDistanceJoint";
    pub(crate) const JOINT: &str = "PhysicsJoint";
    pub(crate) const CUBE: &str = "Cube";
    pub(crate) const SPHERE: &str = "Sphere";
    pub(crate) const CAPSULE: &str = "Capsule";
    pub(crate) const CYLINDER: &str = "Cylinder";
    pub(crate) const CONE: &str = "Cone";
    pub(crate) const PLANE: &str = "Plane";
    pub(crate) const MESH: &str = "Mesh";
    pub(crate) const COLLISION_GROUP: &str = "PhysicsCollisionGroup";
}

/// The drive instance of a joint's single axis: `angular` for rotation, `linear` for
/// translation.
pub(crate) fn drive_instance(angular: bool) -> &'static str {
    if angular { "angular" } else { "linear" }
}

/// The attribute `drive:<instance>:physics:<name>` of a `PhysicsDriveAPI` instance.
pub(crate) fn drive_attr(instance: &str, name: &str) -> String {
    format!("drive:{instance}:physics:{name}")
}

/// The attribute `limit:<dof>:physics:<name>` of a `PhysicsLimitAPI` instance.
pub(crate) fn limit_attr(dof: &str, name: &str) -> String {
    format!("limit:{dof}:physics:{name}")
}

/// The six degrees of freedom a generic `PhysicsJoint` limits, as `PhysicsLimitAPI`
/// instances: translations along, then rotations about, the joint frame's X, Y and Z.
pub(crate) const GENERIC_DOFS: [&str; 6] = ["transX", "transY", "transZ", "rotX", "rotY", "rotZ"];

/// The attribute holding the double-precision value of the 32-bit schema attribute `name`:
/// `mbconv:<name>`. The writer adds it where the float is not the IR's value bit for bit; the
/// reader prefers it to the float (OpenUSD and other readers see the float).
pub(crate) fn exact_attr(name: &str) -> String {
    format!("mbconv:{name}")
}

/// The IR's double-precision inertia tensor (nine numbers, row by row, about the centre of
/// mass, in the axes `mbconv:inertiaRotation` gives): kept beside `diagonalInertia` and
/// `principalAxes`, which are 32-bit and an eigen-decomposition.
pub(crate) const EXACT_INERTIA: &str = "mbconv:inertia";
/// The rotation of [`EXACT_INERTIA`]'s axes relative to the body frame (`quatd`).
pub(crate) const EXACT_INERTIA_ROTATION: &str = "mbconv:inertiaRotation";

/// The unit vector of an axis token (`X`, `Y` or `Z`).
pub(crate) fn axis_vector(token: &str) -> Option<Vector3<f64>> {
    match token {
        "X" => Some(Vector3::x()),
        "Y" => Some(Vector3::y()),
        "Z" => Some(Vector3::z()),
        _ => None,
    }
}

/// The axis token of a unit coordinate axis, when `v` is one (positive direction only).
pub(crate) fn axis_token(v: &Vector3<f64>) -> Option<&'static str> {
    ["X", "Y", "Z"]
        .into_iter()
        .find(|t| axis_vector(t).is_some_and(|a| a == *v))
}

/// Degrees per radian: UsdPhysics states angles, angular limits, angular velocities and
/// angular drive gains per degree.
pub(crate) const DEGREES_PER_RADIAN: f64 = 180.0 / std::f64::consts::PI;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_tokens_round_trip() {
        for t in ["X", "Y", "Z"] {
            assert_eq!(axis_vector(t).and_then(|v| axis_token(&v)), Some(t));
        }
        assert_eq!(axis_token(&-Vector3::x()), None);
        assert_eq!(exact_attr("physics:mass"), "mbconv:physics:mass");
    }
}
