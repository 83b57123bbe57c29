/**
 * QR code symbols (ISO/IEC 18004) as the EPC QR code needs them: byte mode,
 * error correction level M, a fixed mask, no quiet zone.
 *
 * The algorithm of Nayuki's QR generator, checked module for module
 * against its port `uqr` (`tests/render/qr_code.test.ts`), written for one
 * code per invoice: the matrix and its function-module flags in flat byte
 * arrays, bits written straight into codewords, Reed–Solomon through log
 * tables and each generator polynomial built once per process. `uqr` keeps
 * rows of booleans, a type per module and one array element per bit, and
 * multiplies in GF(256) bit by bit: twice the time per code.
 *
 * @module
 */

/** A square QR matrix: `modules[row][column]` is true for a dark module. */
export interface QrMatrix {
  size: number;
  modules: boolean[][];
}

// Error correction codewords per block and number of blocks, by version
// (index 0 unused), for level M.
const ECC_CODEWORDS_PER_BLOCK_M = [
  -1,
  10,
  16,
  26,
  18,
  24,
  16,
  18,
  22,
  22,
  26,
  30,
  22,
  22,
  24,
  24,
  28,
  28,
  26,
  26,
  26,
  26,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
];
const ERROR_CORRECTION_BLOCKS_M = [
  -1,
  1,
  1,
  1,
  2,
  2,
  4,
  4,
  4,
  5,
  5,
  5,
  8,
  9,
  9,
  10,
  10,
  11,
  13,
  14,
  16,
  17,
  17,
  18,
  20,
  21,
  23,
  25,
  26,
  28,
  29,
  31,
  33,
  35,
  37,
  38,
  40,
  43,
  45,
  47,
  49,
];
/** Level M's two format bits. */
const FORMAT_BITS_M = 0;
const MODE_BYTE = 4;

/** GF(256) with the QR polynomial x⁸ + x⁴ + x³ + x² + 1: powers of 2 and logarithms. */
const GF_EXP = new Uint8Array(512);
const GF_LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    GF_EXP[i] = x;
    GF_LOG[x] = i;
    x = (x << 1) ^ (x & 0x80 ? 0x11d : 0);
  }
  for (let i = 255; i < 512; i++) GF_EXP[i] = GF_EXP[i - 255];
}

function gf_multiply(x: number, y: number): number {
  return x === 0 || y === 0 ? 0 : GF_EXP[GF_LOG[x] + GF_LOG[y]];
}

/** Generator polynomials by degree (highest coefficient first, the leading 1 left out). */
const divisors = new Map<number, Uint8Array>();

function reed_solomon_divisor(degree: number): Uint8Array {
  let result = divisors.get(degree);
  if (result !== undefined) return result;
  result = new Uint8Array(degree);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      result[j] = gf_multiply(result[j], root);
      if (j + 1 < degree) result[j] ^= result[j + 1];
    }
    root = gf_multiply(root, 2);
  }
  divisors.set(degree, result);
  return result;
}

/** The Reed–Solomon remainder of `data` (error correction codewords). */
function reed_solomon_remainder(
  data: Uint8Array,
  divisor: Uint8Array,
): Uint8Array {
  const degree = divisor.length;
  const result = new Uint8Array(degree);
  for (let k = 0; k < data.length; k++) {
    const factor = data[k] ^ result[0];
    for (let i = 0; i < degree - 1; i++) result[i] = result[i + 1];
    result[degree - 1] = 0;
    if (factor === 0) continue;
    const log_factor = GF_LOG[factor];
    for (let i = 0; i < degree; i++) {
      if (divisor[i] !== 0) {
        result[i] ^= GF_EXP[GF_LOG[divisor[i]] + log_factor];
      }
    }
  }
  return result;
}

function raw_data_modules(version: number): number {
  let result = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    result -= (25 * align - 10) * align - 55;
    if (version >= 7) result -= 36;
  }
  return result;
}

function data_codewords(version: number): number {
  return Math.floor(raw_data_modules(version) / 8) -
    ECC_CODEWORDS_PER_BLOCK_M[version] * ERROR_CORRECTION_BLOCKS_M[version];
}

/** The data codewords of `bytes` in byte mode for `version`, padded. */
function data_codeword_bytes(bytes: Uint8Array, version: number): Uint8Array {
  const capacity = data_codewords(version);
  const out = new Uint8Array(capacity);
  let bits = 0;
  const append = (value: number, length: number): void => {
    for (let i = length - 1; i >= 0; i--) {
      if ((value >>> i) & 1) out[bits >>> 3] |= 0x80 >>> (bits & 7);
      bits++;
    }
  };
  append(MODE_BYTE, 4);
  append(bytes.length, version <= 9 ? 8 : 16);
  for (const byte of bytes) append(byte, 8);
  // Terminator (at most four zero bits) and padding to a byte are zeros
  // already; then the pad codewords 0xEC, 0x11 in turn.
  bits += Math.min(4, capacity * 8 - bits);
  bits += (8 - (bits % 8)) % 8;
  for (let pad = 0xec; bits < capacity * 8; pad ^= 0xec ^ 0x11) append(pad, 8);
  return out;
}

/** Data and error correction codewords, split into blocks and interleaved. */
function codewords_with_ecc(data: Uint8Array, version: number): Uint8Array {
  const blocks = ERROR_CORRECTION_BLOCKS_M[version];
  const ecc_length = ECC_CODEWORDS_PER_BLOCK_M[version];
  const raw = Math.floor(raw_data_modules(version) / 8);
  const short_blocks = blocks - (raw % blocks);
  const short_length = Math.floor(raw / blocks);
  const divisor = reed_solomon_divisor(ecc_length);
  const all: Uint8Array[] = [];
  for (let i = 0, k = 0; i < blocks; i++) {
    const length = short_length - ecc_length + (i < short_blocks ? 0 : 1);
    const block_data = data.subarray(k, k + length);
    k += length;
    // Short blocks get a placeholder byte so every block has one length.
    const block = new Uint8Array(short_length + 1);
    block.set(block_data);
    block.set(
      reed_solomon_remainder(block_data, divisor),
      short_length + 1 - ecc_length,
    );
    all.push(block);
  }
  const result = new Uint8Array(raw);
  let n = 0;
  for (let i = 0; i <= short_length; i++) {
    for (let j = 0; j < blocks; j++) {
      if (i !== short_length - ecc_length || j >= short_blocks) {
        result[n++] = all[j][i];
      }
    }
  }
  return result;
}

/** The symbol being drawn: module colours and which modules are function patterns. */
class QrSymbol {
  readonly size: number;
  readonly dark: Uint8Array;
  readonly fixed: Uint8Array;

  constructor(readonly version: number) {
    this.size = version * 4 + 17;
    this.dark = new Uint8Array(this.size * this.size);
    this.fixed = new Uint8Array(this.size * this.size);
  }

  set_function(x: number, y: number, dark: boolean): void {
    const i = y * this.size + x;
    this.dark[i] = dark ? 1 : 0;
    this.fixed[i] = 1;
  }

  draw_function_patterns(): void {
    const size = this.size;
    for (let i = 0; i < size; i++) {
      this.set_function(6, i, i % 2 === 0);
      this.set_function(i, 6, i % 2 === 0);
    }
    this.draw_finder(3, 3);
    this.draw_finder(size - 4, 3);
    this.draw_finder(3, size - 4);
    const positions = alignment_positions(this.version, size);
    const last = positions.length - 1;
    for (let i = 0; i <= last; i++) {
      for (let j = 0; j <= last; j++) {
        const corner = (i === 0 && j === 0) || (i === 0 && j === last) ||
          (i === last && j === 0);
        if (!corner) this.draw_alignment(positions[i], positions[j]);
      }
    }
    this.draw_format_bits(0);
    this.draw_version();
  }

  draw_finder(x: number, y: number): void {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const distance = Math.max(Math.abs(dx), Math.abs(dy));
        const xx = x + dx;
        const yy = y + dy;
        if (xx >= 0 && xx < this.size && yy >= 0 && yy < this.size) {
          this.set_function(xx, yy, distance !== 2 && distance !== 4);
        }
      }
    }
  }

  draw_alignment(x: number, y: number): void {
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) {
        this.set_function(
          x + dx,
          y + dy,
          Math.max(Math.abs(dx), Math.abs(dy)) !== 1,
        );
      }
    }
  }

  draw_format_bits(mask: number): void {
    const data = (FORMAT_BITS_M << 3) | mask;
    let rem = data;
    for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
    const bits = ((data << 10) | rem) ^ 0x5412;
    const bit = (i: number): boolean => ((bits >>> i) & 1) !== 0;
    const size = this.size;
    for (let i = 0; i <= 5; i++) this.set_function(8, i, bit(i));
    this.set_function(8, 7, bit(6));
    this.set_function(8, 8, bit(7));
    this.set_function(7, 8, bit(8));
    for (let i = 9; i < 15; i++) this.set_function(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) this.set_function(size - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) this.set_function(8, size - 15 + i, bit(i));
    this.set_function(8, size - 8, true);
  }

  draw_version(): void {
    if (this.version < 7) return;
    let rem = this.version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (this.version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) !== 0;
      const a = this.size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      this.set_function(a, b, dark);
      this.set_function(b, a, dark);
    }
  }

  /** Places the codewords' bits in the zigzag order of the standard. */
  draw_codewords(codewords: Uint8Array): void {
    const size = this.size;
    const total = codewords.length * 8;
    let i = 0;
    for (let right = size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      const upward = ((right + 1) & 2) === 0;
      for (let vert = 0; vert < size; vert++) {
        const y = upward ? size - 1 - vert : vert;
        for (let j = 0; j < 2; j++) {
          const index = y * size + right - j;
          if (this.fixed[index] === 0 && i < total) {
            this.dark[index] = (codewords[i >>> 3] >>> (7 - (i & 7))) & 1;
            i++;
          }
        }
      }
    }
  }

  apply_mask(mask: number): void {
    const size = this.size;
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const index = y * size + x;
        if (this.fixed[index] === 0 && mask_inverts(mask, x, y)) {
          this.dark[index] ^= 1;
        }
      }
    }
  }
}

function mask_inverts(mask: number, x: number, y: number): boolean {
  switch (mask) {
    case 0:
      return (x + y) % 2 === 0;
    case 1:
      return y % 2 === 0;
    case 2:
      return x % 3 === 0;
    case 3:
      return (x + y) % 3 === 0;
    case 4:
      return (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0;
    case 5:
      return ((x * y) % 2) + ((x * y) % 3) === 0;
    case 6:
      return (((x * y) % 2) + ((x * y) % 3)) % 2 === 0;
    default:
      return (((x + y) % 2) + ((x * y) % 3)) % 2 === 0;
  }
}

/** Centre coordinates of the alignment patterns, ascending. */
function alignment_positions(version: number, size: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const step = version === 32
    ? 26
    : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const result = [6];
  for (let pos = size - 7; result.length < count; pos -= step) {
    result.splice(1, 0, pos);
  }
  return result;
}

/**
 * The QR code of `bytes` in byte mode at error correction level M, in the
 * smallest version that holds them, with mask `mask` (0–7).
 */
export function qr_code_m(bytes: Uint8Array, mask: number): QrMatrix {
  if (!Number.isInteger(mask) || mask < 0 || mask > 7) {
    throw new RangeError("mask out of range");
  }
  let version = 1;
  for (;; version++) {
    if (version > 40) throw new RangeError("data too long for a QR code");
    const count_bits = version <= 9 ? 8 : 16;
    if (bytes.length >= 1 << count_bits) continue;
    if (4 + count_bits + 8 * bytes.length <= data_codewords(version) * 8) {
      break;
    }
  }
  const symbol = new QrSymbol(version);
  symbol.draw_function_patterns();
  symbol.draw_codewords(
    codewords_with_ecc(data_codeword_bytes(bytes, version), version),
  );
  symbol.apply_mask(mask);
  symbol.draw_format_bits(mask);
  const { size, dark } = symbol;
  const modules: boolean[][] = [];
  for (let y = 0; y < size; y++) {
    const row: boolean[] = new Array(size);
    for (let x = 0; x < size; x++) row[x] = dark[y * size + x] === 1;
    modules.push(row);
  }
  return { size, modules };
}
