// Decodes FeatureServer f=pbf answers with arcgis-pbf-parser, a decoder
// that is not ours, for the ArcGIS door's tests: argv[2..] are files,
// each printed as one line of JSON {featureCollection,
// exceededTransferLimit}.
import { createRequire } from "node:module";
import { join } from "node:path";
import { readFileSync } from "node:fs";

const require = createRequire(join(process.env.ESRI_CLIENTS, "package.json"));
const decode = require("arcgis-pbf-parser");

for (const file of process.argv.slice(2)) {
  process.stdout.write(JSON.stringify(decode(new Uint8Array(readFileSync(file)))) + "\n");
}
