//! Bushing force laws and design helpers (work in progress).
