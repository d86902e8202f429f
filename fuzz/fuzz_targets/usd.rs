//! Fuzz target: arbitrary bytes read as `usd`, then validated, lowered and emitted.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mbconv_fuzz::exercise("usd", data);
});
