import sharp from "sharp"
import { flatPng, blackBitmapPng } from "./test/fixtures/images.ts"
import { pngHeader } from "./src/domain/pngHeader.ts"
const t0 = Date.now()
const b = blackBitmapPng(30000, 30000); console.log("bomb", b.length, Date.now() - t0)
for (const o of [{ width: 37, height: 23, bitDepth: 16, colourType: 6, interlaced: true }, { width: 37, height: 23, bitDepth: 1, colourType: 0, interlaced: true }, { width: 10000, height: 10000, bitDepth: 16, colourType: 6, interlaced: true }] as const) {
  const t = Date.now(); const p = flatPng(o); console.log(p.length, Date.now() - t, pngHeader(p))
  if (o.width < 100) { const r = await sharp(p, { failOn: "warning" }).raw().toBuffer({ resolveWithObject: true }); console.log(r.info, r.data.every((x) => x === 0)) }
}
