// Reads a PMTiles archive with Protomaps' reader (the pmtiles npm package)
// from a local file, for the tile archive tests.
//
//   node read.mjs ARCHIVE < tiles.txt
//
// PMTILES_READER_DIR is the folder scripts/ensure-npm.sh pmtiles-reader
// printed. stdin holds one "z/x/y" a line; stdout is one JSON object:
// {"header": {...}, "metadata": {...}, "tiles": {"z/x/y": {"length": n,
// "sha256": hex} or null}}, the tile data as the reader returns it (after
// undoing the archive's tile compression).
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.env.PMTILES_READER_DIR;
if (!dir) {
  console.error("read.mjs: PMTILES_READER_DIR is not set");
  process.exit(2);
}
const { PMTiles } = await import(
  pathToFileURL(join(dir, "node_modules", "pmtiles", "dist", "esm", "index.js")).href
);

// FileSource reads byte ranges of a local file: the reader's Source.
class FileSource {
  constructor(path) {
    this.path = path;
    this.handle = null;
  }
  getKey() {
    return this.path;
  }
  async getBytes(offset, length) {
    if (!this.handle) this.handle = await open(this.path, "r");
    const buf = Buffer.alloc(length);
    const { bytesRead } = await this.handle.read(buf, 0, length, offset);
    const data = buf.buffer.slice(buf.byteOffset, buf.byteOffset + bytesRead);
    return { data };
  }
}

const path = process.argv[2];
const source = new FileSource(path);
const archive = new PMTiles(source);

let input = "";
for await (const chunk of process.stdin) input += chunk;
const wanted = input.split("\n").map((s) => s.trim()).filter(Boolean);

const out = {
  header: await archive.getHeader(),
  metadata: await archive.getMetadata(),
  tiles: {},
};
for (const key of wanted) {
  const [z, x, y] = key.split("/").map(Number);
  const t = await archive.getZxy(z, x, y);
  if (!t) {
    out.tiles[key] = null;
    continue;
  }
  const data = Buffer.from(t.data);
  out.tiles[key] = { length: data.length, sha256: createHash("sha256").update(data).digest("hex") };
}
if (source.handle) await source.handle.close();
process.stdout.write(JSON.stringify(out));
