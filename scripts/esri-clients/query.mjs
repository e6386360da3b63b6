// Reads a FeatureServer layer with arcgis-rest-js's queryFeatures, the
// way ArcGIS web apps do, for the ArcGIS door's tests
// (ogc/arcgisclients_test.go). Input (argv[2], JSON): {url, where,
// geometry, pageSize, httpMethod}. Pages with resultOffset while the
// answer says exceededTransferLimit; prints {pages, features:
// [{id, attributes}]} as JSON.
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.env.ESRI_CLIENTS, "package.json"));
const { queryFeatures } = require("@esri/arcgis-rest-feature-service");

const input = JSON.parse(process.argv[2]);
const out = { pages: 0, features: [] };
for (let offset = 0; ; ) {
  const params = {
    url: input.url,
    where: input.where,
    outFields: "*",
    resultOffset: offset,
    resultRecordCount: input.pageSize,
    httpMethod: input.httpMethod || "GET",
  };
  if (input.geometry) {
    params.geometry = input.geometry;
    params.geometryType = "esriGeometryEnvelope";
    params.spatialRel = "esriSpatialRelIntersects";
    params.inSR = 4326;
  }
  const res = await queryFeatures(params);
  out.pages++;
  for (const f of res.features) {
    out.features.push({ id: f.attributes.OBJECTID, attributes: f.attributes, geometry: f.geometry });
  }
  offset += res.features.length;
  if (!res.exceededTransferLimit || res.features.length === 0) break;
  if (out.pages > 1000) throw new Error("too many pages");
}
process.stdout.write(JSON.stringify(out));
