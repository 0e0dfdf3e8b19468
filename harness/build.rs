//! Passes the optimization level connsim is compiled with to the crate, so an unoptimized
//! build (a connector crate without the profile lines in connsim's README) can say so.

fn main() {
    let level = std::env::var("OPT_LEVEL").unwrap_or_default();
    println!("cargo:rustc-env=CONNSIM_OPT_LEVEL={level}");
    println!("cargo:rerun-if-changed=build.rs");
}
