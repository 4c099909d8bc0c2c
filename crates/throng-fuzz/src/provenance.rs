//! Target `provenance`: what a bake does with the files around a model
//! before and while it imports it. The input is written as `model.gltf`
//! into a folder that holds one of each thing a hostile glTF can name — a
//! regular buffer file (`a.bin`, 4 KiB of zeros), a FIFO (`fifo`), a
//! socket (`socket`), a directory (`dir`), a link to `/dev/zero` (`zero`),
//! and a link out of the folder (`out.bin`, to `../secret.bin`) — then
//! hashed for provenance (as `throng bake`'s up-to-date check does, with
//! the model also named as its events file and a LOD file) and imported
//! from disk, under both URI policies. Nothing may block (the fuzzer's
//! timeout catches a hang), panic or hash two ways.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use throng_bake::provenance::provenance;
use throng_bake::{BakeOptions, ImportOptions, import_file_with};

/// The sandbox folder, made once per process.
struct Sandbox {
    model: PathBuf,
    /// The socket lives as long as its listener.
    #[cfg(unix)]
    _socket: Option<std::os::unix::net::UnixListener>,
}

fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| {
        let root =
            std::env::temp_dir().join(format!("throng-fuzz-provenance-{}", std::process::id()));
        let dir = root.join("model");
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(dir.join("dir")).expect("the sandbox folder");
        std::fs::write(dir.join("a.bin"), [0u8; 4096]).expect("a.bin");
        std::fs::write(root.join("secret.bin"), [7u8; 4096]).expect("secret.bin");
        #[cfg(unix)]
        let socket = {
            let _ = std::process::Command::new("mkfifo")
                .arg(dir.join("fifo"))
                .status();
            let _ = std::os::unix::fs::symlink("/dev/zero", dir.join("zero"));
            let _ = std::os::unix::fs::symlink(root.join("secret.bin"), dir.join("out.bin"));
            std::os::unix::net::UnixListener::bind(dir.join("socket")).ok()
        };
        Sandbox {
            model: dir.join("model.gltf"),
            #[cfg(unix)]
            _socket: socket,
        }
    })
}

/// The target's body: accepted when the model imports under either policy.
pub fn run(data: &[u8]) -> bool {
    let sandbox = sandbox();
    let model: &Path = &sandbox.model;
    if std::fs::write(model, data).is_err() {
        return false;
    }
    let mut accepted = false;
    for allow_outside_uris in [false, true] {
        let opts = BakeOptions {
            allow_outside_uris,
            events_file: Some(model.to_path_buf()),
            lod_files: vec![model.to_path_buf()],
            ..BakeOptions::default()
        };
        let first = provenance(model, &opts, String::new());
        let again = provenance(model, &opts, String::new());
        assert_eq!(first, again, "the same inputs hash two ways");
        accepted |= import_file_with(model, &ImportOptions { allow_outside_uris }).is_ok();
    }
    accepted
}
