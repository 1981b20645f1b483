//! `polyflake-pg-schema LIBRARY CONTROL OUTDIR`: writes into OUTDIR the files
//! of the extension's directory (`pg_config --sharedir`/extension): the
//! control file CONTROL with its version, and the SQL that installs the
//! extension whose library is LIBRARY (an ELF shared object built with pgrx).
//!
//! pgrx's macros record every SQL entity (functions, schemas, the extension's
//! own SQL) in a section of the library (`.pgrxsc`); pgrx's entity graph
//! decodes them, orders them and writes the SQL. This does the three steps
//! `cargo pgrx schema` does, and nothing else (ADR 0018).

use std::path::Path;
use std::process::ExitCode;

use object::{Object, ObjectSection};
use pgrx_sql_entity_graph::section::{decode_entities, is_schema_section_name};
use pgrx_sql_entity_graph::{ControlFile, PgrxSql, SqlGraphEntity};

/// The extension's name, as PostgreSQL knows it (`CREATE EXTENSION polyflake`).
const EXTENSION: &str = "polyflake";

fn schema_section(library: &[u8]) -> Result<&[u8], String> {
    let file = object::File::parse(library).map_err(|e| format!("not an object file: {e}"))?;
    for section in file.sections() {
        let name = section
            .name()
            .map_err(|e| format!("a section's name: {e}"))?;
        if is_schema_section_name(name) {
            return section
                .data()
                .map_err(|e| format!("the schema section: {e}"));
        }
    }
    Err("no pgrx schema section (.pgrxsc): built without pgrx, or stripped".into())
}

fn run(library: &Path, control_path: &Path, out: &Path) -> Result<usize, String> {
    let version = env!("CARGO_PKG_VERSION");
    let bytes = std::fs::read(library).map_err(|e| format!("{}: {e}", library.display()))?;
    let section = schema_section(&bytes).map_err(|e| format!("{}: {e}", library.display()))?;
    let decoded = decode_entities(section).map_err(|e| format!("the schema section: {e}"))?;
    let count = decoded.len();
    let template = std::fs::read_to_string(control_path)
        .map_err(|e| format!("{}: {e}", control_path.display()))?;
    let control = ControlFile::from_path_with_cargo_version(control_path, version)
        .map_err(|e| format!("{}: {e}", control_path.display()))?;
    let entities = std::iter::once(SqlGraphEntity::ExtensionRoot(control)).chain(decoded);
    // The control file names the library (module_pathname): not versioned.
    let sql = PgrxSql::build(entities, EXTENSION.to_owned(), false)
        .map_err(|e| format!("the SQL graph: {e:#}"))?;
    let sql_path = out.join(format!("{EXTENSION}--{version}.sql"));
    sql.to_file(&sql_path)
        .map_err(|e| format!("{}: {e:#}", sql_path.display()))?;
    let control_out = out.join(format!("{EXTENSION}.control"));
    std::fs::write(&control_out, template.replace("@CARGO_VERSION@", version))
        .map_err(|e| format!("{}: {e}", control_out.display()))?;
    Ok(count)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [library, control, out] = args.as_slice() else {
        eprintln!("usage: polyflake-pg-schema LIBRARY CONTROL OUTDIR");
        return ExitCode::from(2);
    };
    match run(Path::new(library), Path::new(control), Path::new(out)) {
        Ok(count) => {
            eprintln!("polyflake-pg-schema: {count} SQL entities to {out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("polyflake-pg-schema: {e}");
            ExitCode::FAILURE
        }
    }
}
