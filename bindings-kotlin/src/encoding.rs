//! format / parse: wraps `polyflake::encoding`. Bytes travel as `Vec<u8>`.

use polyflake::Encoding;

use crate::error::Result;

/// Text for a text encoding (for `bytes`, use `format_bytes`).
#[uniffi::export]
pub fn format_id(id: u64, encoding: String) -> Result<String> {
    let encoding = Encoding::from_name(&encoding)?;
    if encoding.is_binary() {
        return Err(polyflake::Error::invalid(
            polyflake::ArgumentKind::Usage,
            "use Polyflake.formatBytes for the bytes encoding (formatId returns text)".into(),
        )
        .into());
    }
    Ok(encoding.format(id))
}

/// The 8 big-endian bytes of an ID.
#[uniffi::export]
pub fn format_bytes(id: u64) -> Vec<u8> {
    Encoding::Bytes.encode(id).as_bytes().to_vec()
}

#[uniffi::export]
pub fn parse_id(text: String, encoding: String) -> Result<u64> {
    Ok(Encoding::from_name(&encoding)?.parse(text)?)
}

#[uniffi::export]
pub fn parse_bytes(bytes: Vec<u8>) -> Result<u64> {
    Ok(Encoding::Bytes.parse(bytes)?)
}

#[uniffi::export]
pub fn encoding_names() -> Vec<String> {
    Encoding::ALL.iter().map(|e| e.name().to_owned()).collect()
}

/// The contract's rule for which JSON keys hold IDs (the core's `is_id_key`).
#[uniffi::export]
pub fn is_id_key(key: String) -> bool {
    polyflake::is_id_key(&key)
}
