//! The targets over shaped's integrations (features `serde`, `bytemuck`, `ndarray`). Their
//! files use `super::super::Input` and the other helpers of `common.rs`: whatever includes this
//! module has them at its root.

#[path = "targets/bytemuck_views.rs"]
pub mod bytemuck_views;
#[path = "targets/ndarray_bridge.rs"]
pub mod ndarray_bridge;
#[path = "targets/serde_decoding.rs"]
pub mod serde_decoding;
