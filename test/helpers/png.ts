/**
 * A PNG's text chunks (tEXt, ISO 8859-1 keyword and text): what a screenshot the docs show says
 * about itself, so that a test can tell whether the picture still shows what the page says
 * (docs/report.png: the counts of the page it was taken of).
 */
import { crc32 } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** The text chunks of a PNG, by keyword. */
export function pngText(png: Buffer): Record<string, string> {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  const out: Record<string, string> = {};
  for (let at = 8; at + 12 <= png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const data = png.subarray(at + 8, at + 8 + length);
      const nul = data.indexOf(0);
      out[data.toString('latin1', 0, nul)] = data.toString('latin1', nul + 1);
    }
    at += 12 + length;
  }
  return out;
}

/** The PNG with a text chunk (keyword, text) put after its header chunk. */
export function withPngText(png: Buffer, keyword: string, text: string): Buffer {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  const ihdrEnd = 8 + 12 + png.readUInt32BE(8);
  const data = Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]);
  return Buffer.concat([png.subarray(0, ihdrEnd), chunk('tEXt', data), png.subarray(ihdrEnd)]);
}
