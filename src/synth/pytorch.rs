//! Large synthetic PyTorch checkpoints, laid out as `torch.save` lays them out: a zip of
//! `<archive>/data.pkl` (protocol 2, an `OrderedDict` of `_rebuild_tensor_v2` calls whose
//! storages are persistent ids), stored members aligned to 64 bytes with a local-header `FB`
//! extra field, and zip64 records. Storage bytes are left as holes: the file is sparse.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

/// The archive's folder.
const ARCHIVE: &str = "ckpt";

/// Writes a checkpoint of `tensors` float32 tensors of `bytes_each` bytes (a multiple of 4).
pub fn write(path: &Path, tensors: u32, bytes_each: u64) -> io::Result<()> {
    let mut records: Vec<(String, Record)> = vec![
        (
            format!("{ARCHIVE}/data.pkl"),
            Record::Bytes(data_pkl(tensors, bytes_each / 4)),
        ),
        (
            format!("{ARCHIVE}/byteorder"),
            Record::Bytes(b"little".to_vec()),
        ),
        (
            format!("{ARCHIVE}/.storage_alignment"),
            Record::Bytes(b"64".to_vec()),
        ),
    ];
    for i in 0..tensors {
        records.push((format!("{ARCHIVE}/data/{i}"), Record::Zeros(bytes_each)));
    }
    records.push((format!("{ARCHIVE}/version"), Record::Bytes(b"3\n".to_vec())));
    let mut file = File::create(path)?;
    let mut central = Vec::new();
    let zeros_crc = crc32_zeros(bytes_each);
    for (name, record) in &records {
        let header = file.stream_position()?;
        // Pad the data to 64 bytes with an "FB" extra field, as torch's writer does.
        let unpadded = header + 30 + name.len() as u64 + 4;
        let pad = (64 - unpadded % 64) % 64;
        let (len, crc) = match record {
            Record::Bytes(b) => (b.len() as u64, crc32(b)),
            Record::Zeros(n) => (*n, zeros_crc),
        };
        let mut local = Vec::new();
        local.extend(b"PK\x03\x04");
        local.extend(45u16.to_le_bytes()); // version needed: zip64
        local.extend([0, 0, 0, 0, 0, 0, 0, 0]); // flags, method (stored), time, date
        local.extend(crc.to_le_bytes());
        local.extend((len as u32).to_le_bytes());
        local.extend((len as u32).to_le_bytes());
        local.extend((name.len() as u16).to_le_bytes());
        local.extend((4 + pad as u16).to_le_bytes());
        local.extend(name.as_bytes());
        local.extend(b"FB");
        local.extend((pad as u16).to_le_bytes());
        local.resize(local.len() + pad as usize, b'Z');
        file.write_all(&local)?;
        match record {
            Record::Bytes(b) => file.write_all(b)?,
            Record::Zeros(n) => {
                file.seek(SeekFrom::Current(*n as i64))?;
            }
        }
        central.extend(b"PK\x01\x02");
        central.extend(45u16.to_le_bytes());
        central.extend(45u16.to_le_bytes());
        central.extend([0, 0, 0, 0, 0, 0, 0, 0]);
        central.extend(crc.to_le_bytes());
        central.extend((len as u32).to_le_bytes());
        central.extend((len as u32).to_le_bytes());
        central.extend((name.len() as u16).to_le_bytes());
        central.extend(12u16.to_le_bytes()); // the zip64 extra field: the header's offset
        central.extend([0; 10]); // comment length, disk, internal and external attributes
        central.extend(u32::MAX.to_le_bytes());
        central.extend(name.as_bytes());
        central.extend(1u16.to_le_bytes());
        central.extend(8u16.to_le_bytes());
        central.extend(header.to_le_bytes());
    }
    let directory = file.stream_position()?;
    file.write_all(&central)?;
    let end64 = file.stream_position()?;
    let count = records.len() as u64;
    let mut end = Vec::new();
    end.extend(b"PK\x06\x06");
    end.extend(44u64.to_le_bytes());
    end.extend(45u16.to_le_bytes());
    end.extend(45u16.to_le_bytes());
    end.extend([0; 8]); // this disk, the directory's disk
    end.extend(count.to_le_bytes());
    end.extend(count.to_le_bytes());
    end.extend((central.len() as u64).to_le_bytes());
    end.extend(directory.to_le_bytes());
    end.extend(b"PK\x06\x07");
    end.extend(0u32.to_le_bytes());
    end.extend(end64.to_le_bytes());
    end.extend(1u32.to_le_bytes());
    end.extend(b"PK\x05\x06");
    end.extend([0; 4]);
    end.extend(u16::try_from(count).unwrap_or(u16::MAX).to_le_bytes());
    end.extend(u16::try_from(count).unwrap_or(u16::MAX).to_le_bytes());
    end.extend((central.len() as u32).to_le_bytes());
    end.extend(u32::MAX.to_le_bytes());
    end.extend(0u16.to_le_bytes());
    file.write_all(&end)
}

enum Record {
    Bytes(Vec<u8>),
    /// This many zero bytes, written as a hole.
    Zeros(u64),
}

/// `OrderedDict([("layers.<i>.weight", tensor i), ...])` as `torch.save` pickles it (protocol
/// 2, the globals memoised), each tensor a float32 vector of `numel` elements.
fn data_pkl(tensors: u32, numel: u64) -> Vec<u8> {
    let mut p = vec![0x80, 2];
    let text = |p: &mut Vec<u8>, s: &str| {
        p.push(b'X');
        p.extend((s.len() as u32).to_le_bytes());
        p.extend(s.as_bytes());
    };
    let int = |p: &mut Vec<u8>, v: u64| {
        p.push(b'J');
        p.extend((v as i32).to_le_bytes());
    };
    p.extend(b"ccollections\nOrderedDict\nq\x00)Rq\x01(");
    for i in 0..tensors {
        text(&mut p, &format!("layers.{i}.weight"));
        if i == 0 {
            p.extend(b"ctorch._utils\n_rebuild_tensor_v2\nq\x02");
        } else {
            p.extend(b"h\x02");
        }
        p.extend(b"((");
        text(&mut p, "storage");
        if i == 0 {
            p.extend(b"ctorch\nFloatStorage\nq\x03");
        } else {
            p.extend(b"h\x03");
        }
        text(&mut p, &i.to_string());
        text(&mut p, "cpu");
        int(&mut p, numel);
        p.extend(b"tQK\x00");
        int(&mut p, numel);
        p.extend(b"\x85K\x01\x85\x89h\x00)RtR");
    }
    p.extend(b"u.");
    p
}

/// The CRC-32 zip stores.
fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &b| step(crc, b))
}

/// The CRC-32 of `len` zero bytes.
fn crc32_zeros(len: u64) -> u32 {
    !(0..len).fold(!0u32, |crc, _| step(crc, 0))
}

fn step(crc: u32, byte: u8) -> u32 {
    (0..8).fold(crc ^ u32::from(byte), |c, _| {
        if c & 1 == 1 {
            (c >> 1) ^ 0xEDB8_8320
        } else {
            c >> 1
        }
    })
}
