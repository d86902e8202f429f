//! Large numeric arrays as base64 of little-endian `f32`/`u32` values: a quarter of the text
//! JSON numbers take, and decoded by the page straight into typed arrays.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// `values` as base64 of little-endian `f32`s (`NaN` stays `NaN`).
pub(crate) fn f32_base64(values: impl IntoIterator<Item = f64>) -> String {
    let bytes: Vec<u8> = values
        .into_iter()
        .flat_map(|v| (v as f32).to_le_bytes())
        .collect();
    STANDARD.encode(bytes)
}

/// `values` as base64 of little-endian `u32`s.
pub(crate) fn u32_base64(values: impl IntoIterator<Item = u32>) -> String {
    let bytes: Vec<u8> = values.into_iter().flat_map(u32::to_le_bytes).collect();
    STANDARD.encode(bytes)
}

/// Raw bytes as base64.
pub(crate) fn bytes_base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn floats_are_little_endian_f32() {
        let text = f32_base64([1.0, f64::NAN]);
        let bytes = STANDARD.decode(text).unwrap();
        assert_eq!(&bytes[..4], &1.0f32.to_le_bytes());
        assert!(f32::from_le_bytes(bytes[4..8].try_into().unwrap()).is_nan());
    }

    #[test]
    fn indices_are_little_endian_u32() {
        let bytes = STANDARD.decode(u32_base64([1, 258])).unwrap();
        assert_eq!(bytes, [1, 0, 0, 0, 2, 1, 0, 0]);
    }
}
