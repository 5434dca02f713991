//! Delimited text traces with a column mapping, and presets for public block traces.
//!
//! A mapping is written as comma-separated `key=value` items (column numbers are 0-based):
//!
//! | key | value | meaning |
//! |---|---|---|
//! | `offset` | `N[:bytes\|sectors\|blocks]` | start address column and its unit (default bytes) |
//! | `block` | `N` | start address column already in blocks (instead of `offset`) |
//! | `size` | `N[:bytes\|sectors\|blocks]` | request length column (default bytes; absent: one block) |
//! | `op` | `N[:words\|scsi]` | direction column (`words`: r/read/w/write, case-insensitive) |
//! | `reads`, `writes` | `V1\|V2…` | the op column's values meaning read / write |
//! | `time` | `N[:ns\|us\|ms\|s\|filetime]` | timestamp column and unit (default ns) |
//! | `device` | `N[+M…]` | columns naming a disk/volume; ids of different devices never collide |
//! | `sep` | `comma\|tab\|space\|semicolon` | field separator (default comma) |

use super::input::excerpt;
use super::{BlockRequest, Op};
use crate::error::{Error, Result};
use rustc_hash::FxHashMap;
use std::io::BufRead;

const SECTOR_BYTES: u64 = 512;
/// Bits of a block id left for the block when a device column keeps volumes apart.
const DEVICE_SHIFT: u32 = 44;

/// Unit of an address or size column.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bytes.
    Bytes,
    /// 512-byte sectors.
    Sectors,
    /// Blocks of the trace's block size.
    Blocks,
}

impl Unit {
    fn parse(s: &str) -> Option<Unit> {
        match s {
            "bytes" | "b" => Some(Unit::Bytes),
            "sectors" | "sector" | "lba" => Some(Unit::Sectors),
            "blocks" | "block" => Some(Unit::Blocks),
            _ => None,
        }
    }

    fn bytes(self, value: u64, block_size: u64) -> Option<u64> {
        match self {
            Unit::Bytes => Some(value),
            Unit::Sectors => value.checked_mul(SECTOR_BYTES),
            Unit::Blocks => value.checked_mul(block_size),
        }
    }
}

/// How the op column's values map to directions.
#[derive(Clone, Debug, PartialEq)]
pub enum OpCodes {
    /// `r`, `read`, `rs` are reads and `w`, `write`, `ws` writes (case-insensitive).
    Words,
    /// SCSI opcodes in hex: READ(6/10/12/16) and WRITE(6/10/12/16); other commands carry no
    /// data and are skipped.
    Scsi,
    /// Explicit value lists (case-insensitive).
    Values {
        /// Values that mean read.
        reads: Vec<String>,
        /// Values that mean write.
        writes: Vec<String>,
    },
}

impl OpCodes {
    /// `Ok(None)` means a valid record that moves no data (skipped).
    fn classify(&self, value: &str) -> std::result::Result<Option<Op>, String> {
        let v = value.trim();
        match self {
            OpCodes::Words => match v.to_ascii_lowercase().as_str() {
                "r" | "read" | "rs" => Ok(Some(Op::Read)),
                "w" | "write" | "ws" => Ok(Some(Op::Write)),
                _ => Err(format!(
                    "op '{}' is neither read (R, Read) nor write (W, Write)",
                    excerpt(v.as_bytes())
                )),
            },
            OpCodes::Scsi => {
                let code = u8::from_str_radix(v.trim_start_matches("0x"), 16).map_err(|_| {
                    format!("op '{}' is not a hex SCSI opcode", excerpt(v.as_bytes()))
                })?;
                Ok(match code {
                    0x08 | 0x28 | 0xa8 | 0x88 => Some(Op::Read),
                    0x0a | 0x2a | 0xaa | 0x8a => Some(Op::Write),
                    _ => None,
                })
            }
            OpCodes::Values { reads, writes } => {
                if reads.iter().any(|r| r.eq_ignore_ascii_case(v)) {
                    Ok(Some(Op::Read))
                } else if writes.iter().any(|w| w.eq_ignore_ascii_case(v)) {
                    Ok(Some(Op::Write))
                } else {
                    Err(format!(
                        "op '{}' is none of the read values ({}) or write values ({})",
                        excerpt(v.as_bytes()),
                        reads.join("|"),
                        writes.join("|")
                    ))
                }
            }
        }
    }
}

/// Where the request's start address comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Address {
    /// A column holding an offset in the given unit.
    Offset {
        /// 0-based column.
        col: usize,
        /// Unit of the values.
        unit: Unit,
    },
    /// A column holding a block id directly.
    Block {
        /// 0-based column.
        col: usize,
    },
}

/// A complete column mapping for delimited traces.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvSpec {
    /// Preset name, or `csv` for a user mapping.
    pub name: String,
    /// Whether the first line is a header to skip.
    pub header: bool,
    /// Field separator.
    pub delimiter: u8,
    /// Start address column.
    pub address: Option<Address>,
    /// Length column and unit; absent means one block per request.
    pub size: Option<(usize, Unit)>,
    /// Direction column and its value mapping; absent means every request is a read.
    pub op: Option<(usize, OpCodes)>,
    /// Timestamp column and nanoseconds per unit.
    pub time: Option<(usize, f64)>,
    /// Columns that together name the device or volume.
    pub device: Vec<usize>,
}

impl CsvSpec {
    fn empty(name: &str) -> CsvSpec {
        CsvSpec {
            name: name.to_string(),
            header: false,
            delimiter: b',',
            address: None,
            size: None,
            op: None,
            time: None,
            device: Vec::new(),
        }
    }

    /// The named presets for the public block traces.
    pub fn preset(name: &str) -> Option<CsvSpec> {
        let mut s = CsvSpec::empty(name);
        match name {
            // version,time,op,size,lbn — lbn in sectors, op a hex SCSI opcode, time in µs.
            "cloudphysics" => {
                s.header = true;
                s.time = Some((1, 1e3));
                s.op = Some((2, OpCodes::Scsi));
                s.size = Some((3, Unit::Bytes));
                s.address = Some(Address::Offset {
                    col: 4,
                    unit: Unit::Sectors,
                });
            }
            // Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime — Windows filetime.
            "msr" => {
                s.time = Some((0, 100.0));
                s.device = vec![1, 2];
                s.op = Some((3, OpCodes::Words));
                s.address = Some(Address::Offset {
                    col: 4,
                    unit: Unit::Bytes,
                });
                s.size = Some((5, Unit::Bytes));
            }
            // Timestamp,Response,IOType,LUN,Offset,Size — seconds with a fraction.
            "systor" => {
                s.header = true;
                s.time = Some((0, 1e9));
                s.op = Some((2, OpCodes::Words));
                s.device = vec![3];
                s.address = Some(Address::Offset {
                    col: 4,
                    unit: Unit::Bytes,
                });
                s.size = Some((5, Unit::Bytes));
            }
            // ts,offset_sectors,size_sectors,iotype(0=read,1=write),volume
            "tencent" => {
                s.time = Some((0, 1e9));
                s.address = Some(Address::Offset {
                    col: 1,
                    unit: Unit::Sectors,
                });
                s.size = Some((2, Unit::Sectors));
                s.op = Some((
                    3,
                    OpCodes::Values {
                        reads: vec!["0".into()],
                        writes: vec!["1".into()],
                    },
                ));
                s.device = vec![4];
            }
            _ => return None,
        }
        Some(s)
    }

    /// Builds a mapping from a `--columns` string alone.
    pub fn from_columns(columns: &str) -> Result<CsvSpec> {
        let mut spec = CsvSpec::empty("csv");
        spec.apply_columns(columns)?;
        if spec.address.is_none() {
            return Err(Error::config(
                "columns",
                columns,
                "needs an address column: offset=N[:unit] or block=N",
            ));
        }
        Ok(spec)
    }

    /// Overrides parts of this mapping with a `--columns` string.
    pub fn apply_columns(&mut self, columns: &str) -> Result<()> {
        let bad = |msg: String| Error::config("columns", columns, msg);
        let mut reads: Option<Vec<String>> = None;
        let mut writes: Option<Vec<String>> = None;
        for item in columns.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| bad(format!("item '{item}' is not key=value")))?;
            let (col_text, suffix) = match value.split_once(':') {
                Some((c, s)) => (c, Some(s)),
                None => (value, None),
            };
            let col = || -> Result<usize> {
                col_text.parse::<usize>().map_err(|_| {
                    bad(format!(
                        "'{key}' needs a 0-based column number, found '{col_text}'"
                    ))
                })
            };
            let unit = |default: Unit| -> Result<Unit> {
                match suffix {
                    None => Ok(default),
                    Some(u) => Unit::parse(u).ok_or_else(|| {
                        bad(format!(
                            "unit '{u}' of '{key}' is not bytes, sectors or blocks"
                        ))
                    }),
                }
            };
            match key {
                "offset" => self.address = Some(Address::Offset { col: col()?, unit: unit(Unit::Bytes)? }),
                "block" => {
                    if suffix.is_some() {
                        return Err(bad("'block' takes no unit; use offset=N:unit".into()));
                    }
                    self.address = Some(Address::Block { col: col()? })
                }
                "size" => self.size = Some((col()?, unit(Unit::Bytes)?)),
                "op" => {
                    let codes = match suffix {
                        None | Some("words") => OpCodes::Words,
                        Some("scsi") => OpCodes::Scsi,
                        Some(other) => return Err(bad(format!("op decoding '{other}' is not words or scsi"))),
                    };
                    self.op = Some((col()?, codes));
                }
                "reads" => reads = Some(value.split('|').map(str::to_string).collect()),
                "writes" => writes = Some(value.split('|').map(str::to_string).collect()),
                "time" => {
                    let ns = match suffix.unwrap_or("ns") {
                        "ns" => 1.0,
                        "us" => 1e3,
                        "ms" => 1e6,
                        "s" => 1e9,
                        "filetime" => 100.0,
                        other => return Err(bad(format!("time unit '{other}' is not ns, us, ms, s or filetime"))),
                    };
                    self.time = Some((col()?, ns));
                }
                "device" => {
                    self.device = value
                        .split('+')
                        .map(|c| {
                            c.parse::<usize>()
                                .map_err(|_| bad(format!("device column '{c}' is not a number")))
                        })
                        .collect::<Result<_>>()?;
                }
                "sep" => {
                    self.delimiter = match value {
                        "comma" | "," => b',',
                        "tab" => b'\t',
                        "space" => b' ',
                        "semicolon" | ";" => b';',
                        _ => return Err(bad(format!("separator '{value}' is not comma, tab, space or semicolon"))),
                    }
                }
                _ => {
                    return Err(bad(format!(
                        "unknown key '{key}'; expected offset, block, size, op, reads, writes, time, device or sep"
                    )))
                }
            }
        }
        if reads.is_some() || writes.is_some() {
            let col = match &self.op {
                Some((c, _)) => *c,
                None => return Err(bad("'reads'/'writes' need an op=N column".into())),
            };
            self.op = Some((
                col,
                OpCodes::Values {
                    reads: reads.unwrap_or_default(),
                    writes: writes.unwrap_or_default(),
                },
            ));
        }
        Ok(())
    }
}

/// Streams block requests from a delimited trace.
pub struct CsvReader {
    records: csv::ByteRecordsIntoIter<Box<dyn BufRead + Send>>,
    path: String,
    spec: CsvSpec,
    address: Address,
    block_size: u64,
    devices: FxHashMap<Vec<u8>, u64>,
    skip_header: bool,
    done: bool,
    device_key: Vec<u8>,
    max_blocks: u64,
}

impl CsvReader {
    /// Wraps a decompressed input with a validated mapping.
    pub fn new(
        input: Box<dyn BufRead + Send>,
        path: String,
        spec: &CsvSpec,
        block_size: u32,
    ) -> Result<Self> {
        let address = spec.address.ok_or_else(|| {
            Error::config(
                "columns",
                "",
                "needs an address column: offset=N[:unit] or block=N",
            )
        })?;
        let records = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(spec.delimiter)
            .trim(csv::Trim::All)
            .from_reader(input)
            .into_byte_records();
        Ok(CsvReader {
            records,
            path,
            skip_header: spec.header,
            spec: spec.clone(),
            address,
            block_size: block_size as u64,
            devices: FxHashMap::default(),
            done: false,
            device_key: Vec::new(),
            max_blocks: super::ReadOptions::default().max_request_blocks(),
        })
    }

    /// Refuses requests of more than `max_blocks` blocks (see [`super::ReadOptions`]).
    pub fn with_max_request_blocks(mut self, max_blocks: u64) -> Self {
        self.max_blocks = max_blocks;
        self
    }

    fn field<'r>(
        record: &'r csv::ByteRecord,
        col: usize,
        what: &str,
    ) -> std::result::Result<&'r [u8], String> {
        record.get(col).ok_or_else(|| {
            format!(
                "expected the {what} field in {}, but the line has only {} columns",
                column(col),
                record.len()
            )
        })
    }

    fn number(
        record: &csv::ByteRecord,
        col: usize,
        what: &str,
    ) -> std::result::Result<u64, String> {
        let text = Self::field(record, col, what)?;
        super::input::parse_u64(text).ok_or_else(|| {
            format!(
                "expected a non-negative integer {what} in {}, found '{}'",
                column(col),
                excerpt(text)
            )
        })
    }

    /// `Ok(None)`: a valid record that is skipped (no data moved).
    fn parse(
        &mut self,
        record: &csv::ByteRecord,
    ) -> std::result::Result<Option<BlockRequest>, String> {
        let op = match &self.spec.op {
            None => Op::Read,
            Some((col, codes)) => {
                let text = Self::field(record, *col, "op")?;
                match codes.classify(&String::from_utf8_lossy(text))? {
                    Some(op) => op,
                    None => return Ok(None),
                }
            }
        };
        let bs = self.block_size;
        let (first, count, bytes) = match self.address {
            Address::Offset { col, unit } => {
                let offset = unit
                    .bytes(Self::number(record, col, "offset")?, bs)
                    .ok_or("offset overflows 64 bits")?;
                let size = match self.spec.size {
                    Some((c, u)) => u
                        .bytes(Self::number(record, c, "size")?, bs)
                        .ok_or("size overflows 64 bits")?,
                    None => bs,
                };
                if size == 0 {
                    return Ok(None);
                }
                let last = offset
                    .checked_add(size - 1)
                    .ok_or("offset + size overflows 64 bits")?
                    / bs;
                (offset / bs, last - offset / bs + 1, size)
            }
            Address::Block { col } => {
                let block = Self::number(record, col, "block")?;
                let (count, bytes) = match self.spec.size {
                    Some((c, Unit::Blocks)) => {
                        let count = Self::number(record, c, "size")?;
                        (count, count.saturating_mul(bs))
                    }
                    Some((c, u)) => {
                        let bytes = u
                            .bytes(Self::number(record, c, "size")?, bs)
                            .ok_or("size overflows 64 bits")?;
                        (bytes.div_ceil(bs), bytes)
                    }
                    None => (1, bs),
                };
                if count == 0 {
                    return Ok(None);
                }
                (block, count, bytes)
            }
        };
        if count > self.max_blocks {
            return Err(format!(
                "a request of {count} blocks is above the limit of {} blocks of {bs} bytes (max_request_bytes)",
                self.max_blocks
            ));
        }
        let count =
            u32::try_from(count).map_err(|_| format!("request of {count} blocks is too large"))?;
        let block = if self.spec.device.is_empty() {
            first
        } else {
            self.device_key.clear();
            for &c in &self.spec.device {
                self.device_key
                    .extend_from_slice(Self::field(record, c, "device")?);
                self.device_key.push(0);
            }
            let next = self.devices.len() as u64;
            let dev = *self.devices.entry(self.device_key.clone()).or_insert(next);
            if first + count as u64 > (1u64 << DEVICE_SHIFT) || dev >= (1u64 << (64 - DEVICE_SHIFT))
            {
                return Err(format!(
                    "block {first} is beyond the 2^{DEVICE_SHIFT} blocks a device may span when devices are kept apart"
                ));
            }
            (dev << DEVICE_SHIFT) | first
        };
        let time_ns = match self.spec.time {
            None => None,
            Some((col, ns_per_unit)) => {
                let text = Self::field(record, col, "time")?;
                let whole = super::input::parse_u64(text);
                let number = whole.map(|v| v as f64).or_else(|| {
                    std::str::from_utf8(text)
                        .ok()
                        .and_then(|t| t.parse::<f64>().ok())
                        .filter(|v| v.is_finite() && *v >= 0.0)
                });
                let parsed = match whole {
                    Some(v) if ns_per_unit.fract() == 0.0 => {
                        crate::limits::timestamp_ns_int(v, ns_per_unit as u64)
                    }
                    _ => number.and_then(|v| crate::limits::timestamp_ns(v, ns_per_unit)),
                };
                Some(parsed.ok_or_else(|| match number {
                    Some(_) => format!(
                        "timestamp '{}' in {} is past the latest belady accepts (2^64 ns, about 584 years)",
                        excerpt(text),
                        column(col)
                    ),
                    None => format!(
                        "expected a timestamp in {}, found '{}'",
                        column(col),
                        excerpt(text)
                    ),
                })?)
            }
        };
        Ok(Some(BlockRequest {
            block,
            count,
            op,
            time_ns,
            bytes,
        }))
    }
}

/// Column `col` (0-based, as `--columns` writes it) as a message names it: counted from 1, as
/// editors and spreadsheets count, with the index to write in `--columns`.
fn column(col: usize) -> String {
    format!("column {} (index {col} in --columns)", col + 1)
}

impl Iterator for CsvReader {
    type Item = Result<BlockRequest>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            let record = match self.records.next()? {
                Ok(r) => r,
                Err(e) => {
                    self.done = true;
                    // A record error knows its line; a read error (a damaged compressed
                    // stream) is placed after the last line read, never at line 0.
                    let read = self.records.reader().position().line().saturating_sub(1);
                    let line = e.position().map_or(read + 1, |p| p.line());
                    let msg = format!("unreadable CSV: {e}");
                    return Some(Err(match e.into_kind() {
                        csv::ErrorKind::Io(cause) => Error::Io {
                            path: format!("{} (after line {read})", self.path),
                            cause,
                        },
                        _ => Error::Parse {
                            path: self.path.clone(),
                            line,
                            msg,
                        },
                    }));
                }
            };
            if self.skip_header {
                self.skip_header = false;
                continue;
            }
            if record.len() == 1 && record.get(0).is_some_and(|f| f.is_empty()) {
                continue;
            }
            match self.parse(&record) {
                Ok(Some(req)) => return Some(Ok(req)),
                Ok(None) => continue,
                Err(msg) => {
                    self.done = true;
                    return Some(Err(Error::Parse {
                        path: self.path.clone(),
                        line: record.position().map(|p| p.line()).unwrap_or(0),
                        msg,
                    }));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(spec: &CsvSpec, text: &str, bs: u32) -> Vec<Result<BlockRequest>> {
        CsvReader::new(
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            "c.csv".into(),
            spec,
            bs,
        )
        .unwrap()
        .collect()
    }

    #[test]
    fn cloudphysics_maps_sectors_and_scsi_ops() {
        let spec = CsvSpec::preset("cloudphysics").unwrap();
        let got = read(
            &spec,
            "version,time,op,size,lbn\n1,5,28,8192,16\n1,6,2a,512,7\n1,7,35,0,0\n",
            4096,
        );
        assert_eq!(got.len(), 2);
        let a = got[0].as_ref().unwrap();
        assert_eq!(
            (a.block, a.count, a.op, a.time_ns),
            (2, 2, Op::Read, Some(5000))
        );
        let b = got[1].as_ref().unwrap();
        assert_eq!((b.block, b.count, b.op), (0, 1, Op::Write));
        // The recorded lengths, not the blocks they span.
        assert_eq!((a.bytes, b.bytes), (8192, 512));
    }

    #[test]
    fn a_request_asks_for_its_recorded_bytes_or_its_blocks() {
        let sized = CsvSpec::from_columns("offset=0,size=1").unwrap();
        let r = read(
            &sized,
            "4095,2
0,10000
",
            4096,
        );
        let bytes: Vec<u64> = r.iter().map(|r| r.as_ref().unwrap().bytes).collect();
        assert_eq!(bytes, [2, 10000]);
        let blocks = CsvSpec::from_columns("block=0,size=1:blocks").unwrap();
        assert_eq!(
            read(
                &blocks, "7,3
", 512
            )[0]
            .as_ref()
            .unwrap()
            .bytes,
            3 * 512
        );
        let no_size = CsvSpec::from_columns("block=0").unwrap();
        assert_eq!(
            read(
                &no_size, "7
", 512
            )[0]
            .as_ref()
            .unwrap()
            .bytes,
            512
        );
    }

    #[test]
    fn unaligned_request_spans_every_block_it_touches() {
        let spec = CsvSpec::from_columns("offset=0,size=1").unwrap();
        let got = read(&spec, "4095,2\n", 4096);
        let r = got[0].as_ref().unwrap();
        assert_eq!((r.block, r.count), (0, 2));
    }

    #[test]
    fn devices_keep_block_ids_apart() {
        let spec = CsvSpec::preset("tencent").unwrap();
        let got = read(&spec, "1,8,8,0,1058\n2,8,8,0,1063\n3,8,8,1,1058\n", 4096);
        let ids: Vec<u64> = got.iter().map(|r| r.as_ref().unwrap().block).collect();
        assert_eq!(ids[0], 1);
        assert_eq!(ids[1], (1 << DEVICE_SHIFT) | 1);
        assert_eq!(ids[2], 1);
        assert_eq!(got[2].as_ref().unwrap().op, Op::Write);
    }

    #[test]
    fn bad_fields_name_line_and_expectation() {
        let spec = CsvSpec::preset("systor").unwrap();
        let got = read(&spec, "Timestamp,Response,IOType,LUN,Offset,Size\n1.5,0.1,R,0,4096,4096\n1.6,0.1,X,0,4096,4096\n", 4096);
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[1].as_ref().unwrap_err().to_string(),
            "c.csv:3: op 'X' is neither read (R, Read) nor write (W, Write)"
        );
        let msr = CsvSpec::preset("msr").unwrap();
        let got = read(&msr, "1,hm,0,Read,abc,512,1\n", 4096);
        assert!(got[0].as_ref().unwrap_err().to_string().contains(
            "c.csv:1: expected a non-negative integer offset in column 5 (index 4 in --columns)"
        ));
        let got = read(&msr, "1,hm,0,Read\n", 4096);
        assert!(got[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("only 4 columns"));
    }

    #[test]
    fn column_strings_are_validated() {
        assert!(CsvSpec::from_columns("size=1").is_err());
        assert!(CsvSpec::from_columns("offset=x").is_err());
        assert!(CsvSpec::from_columns("offset=1:furlongs").is_err());
        assert!(CsvSpec::from_columns("offset=1,reads=R").is_err());
        let s = CsvSpec::from_columns("block=0,op=1,reads=0,writes=1|2,sep=tab").unwrap();
        assert_eq!(s.delimiter, b'\t');
        assert_eq!(
            s.op.unwrap().1,
            OpCodes::Values {
                reads: vec!["0".into()],
                writes: vec!["1".into(), "2".into()]
            }
        );
    }
}
