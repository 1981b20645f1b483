//! formatId / parseId: wraps `polyflake::encoding`.

use napi::bindgen_prelude::*;
use napi::{Env, ValueType};
use napi_derive::napi;
use polyflake::Encoding;

use crate::args::{text_arg, u64_arg};
use crate::error::{wrong_type, OrThrow};

fn encoding_arg(env: &Env, name: Option<Unknown<'_>>) -> Result<Encoding> {
    match name {
        Some(n) if n.get_type()? != ValueType::Undefined => {
            let n = text_arg(env, "encoding", &n, "an encoding's name (a string)")?;
            Encoding::from_name(&n).or_throw(env)
        }
        _ => Ok(Encoding::Decimal),
    }
}

/// The encodings, by name.
#[napi]
pub const ENCODINGS: [&str; 9] = [
    "decimal",
    "hex",
    "base2",
    "base32",
    "base36",
    "base58",
    "base64",
    "crockford32",
    "bytes",
];

/// Text for text encodings; a `Buffer` of 8 bytes for `'bytes'`.
#[napi(catch_unwind)]
pub fn format_id(
    env: Env,
    #[napi(ts_arg_type = "bigint | string | number")] id: Unknown<'_>,
    #[napi(ts_arg_type = "EncodingName")] encoding: Option<Unknown<'_>>,
) -> Result<Either<String, Buffer>> {
    let id = u64_arg(&env, "id", &id)?;
    let encoding = encoding_arg(&env, encoding)?;
    let encoded = encoding.encode(id);
    Ok(match encoded.as_str() {
        Some(text) => Either::A(text.to_owned()),
        None => Either::B(Buffer::from(encoded.as_bytes().to_vec())),
    })
}

/// Whether `jsonReviver()` treats a JSON key as naming an ID (or an array of
/// IDs): `id`, `ids`, or a key ending in `_id`, `_ids`, `Id`, `Ids`, `ID`, `IDs`.
#[napi(catch_unwind)]
pub fn is_id_key(key: String) -> bool {
    polyflake::is_id_key(&key)
}

/// Parses text (or 8 bytes for `'bytes'`) into an ID.
#[napi(catch_unwind)]
pub fn parse_id(
    env: Env,
    #[napi(ts_arg_type = "string | Buffer")] text: Unknown<'_>,
    #[napi(ts_arg_type = "EncodingName")] encoding: Option<Unknown<'_>>,
) -> Result<u64> {
    let encoding = encoding_arg(&env, encoding)?;
    match text.get_type()? {
        // Bytes are bytes, text is text: never a string's UTF-8 read as raw bytes.
        ValueType::String if encoding == Encoding::Bytes => Err(wrong_type(
            &env,
            "text",
            "a Buffer of 8 bytes for encoding 'bytes'",
        )),
        ValueType::String => {
            let s: String = unsafe { text.cast()? };
            encoding.parse(s).or_throw(&env)
        }
        ValueType::Object => {
            // A Buffer (or Uint8Array), not just any typed array's memory.
            let mut is_typed = false;
            unsafe { napi::sys::napi_is_typedarray(env.raw(), text.raw(), &mut is_typed) };
            let mut kind = -1;
            if is_typed {
                unsafe {
                    napi::sys::napi_get_typedarray_info(
                        env.raw(),
                        text.raw(),
                        &mut kind,
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                    )
                };
            }
            if kind != napi::sys::TypedarrayType::uint8_array {
                return Err(wrong_type(&env, "text", "a string or a Buffer"));
            }
            let bytes: Buffer = unsafe { text.cast() }
                .map_err(|_| wrong_type(&env, "text", "a string or a Buffer"))?;
            encoding.parse(&bytes[..]).or_throw(&env)
        }
        _ => Err(wrong_type(&env, "text", "a string or a Buffer")),
    }
}
