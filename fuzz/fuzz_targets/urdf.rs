//! Fuzz target: arbitrary bytes read as `urdf`, then validated, lowered and emitted.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mbconv_fuzz::exercise("urdf", data);
});
