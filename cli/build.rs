//! With `serve`: the gRPC service's code and its descriptor set (for
//! reflection) from cli/proto/polyflake/v1/ids.proto, with Debian's protoc.

fn main() {
    #[cfg(feature = "serve")]
    {
        let proto = "proto/polyflake/v1/ids.proto";
        println!("cargo:rerun-if-changed={proto}");
        let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
        // The client is for examples/grpc_load.rs (make bench-serve).
        tonic_prost_build::configure()
            .file_descriptor_set_path(out.join("polyflake_descriptor.bin"))
            .compile_protos(&[proto], &["proto"])
            .expect("protoc compiles cli/proto/polyflake/v1/ids.proto (make deps installs protobuf-compiler)");
    }
}
