/**
 * The bench's input images, generated in memory with sharp (deterministic: seeded noise over
 * smooth gradients, so the files have a photograph's entropy and really weigh what they claim).
 * sharp must be resolved from the project's node_modules: run the benches from the project folder.
 */
import sharp from "sharp"

export type ImageKind = "jpeg12mp" | "png10mb" | "webpSmall" | "gifAnimated"

export interface BenchImage {
  readonly kind: ImageKind
  readonly label: string
  readonly mime: string
  readonly width: number
  readonly height: number
  readonly bytes: Uint8Array
}

/** xorshift32: the same pixels on every run and machine. */
const prng = (seed: number) => {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state >>>= 0
    state ^= state >>> 17
    state ^= state << 5
    state >>>= 0
    return state
  }
}

/**
 * RGB pixels: diagonal gradients in each channel, a few soft discs (structure an encoder cannot
 * predict away), plus uniform noise of `noise` levels either side.
 */
const scene = (width: number, height: number, noise: number, seed: number): Uint8Array => {
  const next = prng(seed)
  const pixels = new Uint8Array(width * height * 3)
  const discs = Array.from({ length: 12 }, () => ({
    x: next() % width,
    y: next() % height,
    r: 80 + (next() % Math.max(1, Math.floor(Math.min(width, height) / 4))),
    c: [next() % 256, next() % 256, next() % 256] as const
  }))
  const span = 2 * noise + 1
  let at = 0
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = (255 * x) / width
      let g = (255 * y) / height
      let b = (255 * (x + y)) / (width + height)
      for (const disc of discs) {
        const dx = x - disc.x
        const dy = y - disc.y
        if (dx * dx + dy * dy < disc.r * disc.r) {
          r = (r + disc.c[0]) / 2
          g = (g + disc.c[1]) / 2
          b = (b + disc.c[2]) / 2
        }
      }
      const n = next()
      pixels[at++] = Math.max(0, Math.min(255, r + ((n & 0xff) % span) - noise))
      pixels[at++] = Math.max(0, Math.min(255, g + (((n >>> 8) & 0xff) % span) - noise))
      pixels[at++] = Math.max(0, Math.min(255, b + (((n >>> 16) & 0xff) % span) - noise))
    }
  }
  return pixels
}

const raw = (width: number, height: number) => ({ raw: { width, height, channels: 3 as const } })

/** A 12-megapixel (4000 x 3000) JPEG of about 5 MB (quality 90, 4:2:0 chroma). */
export const jpeg12mp = async (): Promise<BenchImage> => {
  const width = 4000
  const height = 3000
  const bytes = await sharp(scene(width, height, 30, 1), raw(width, height)).jpeg({ quality: 90 }).toBuffer()
  return { kind: "jpeg12mp", label: "12-MP JPEG", mime: "image/jpeg", width, height, bytes: new Uint8Array(bytes) }
}

/** A 4-megapixel (2300 x 1725) PNG of about 10 MB, just under the 10 MiB image limit of spec §8. */
export const png10mb = async (): Promise<BenchImage> => {
  const width = 2300
  const height = 1725
  const bytes = await sharp(scene(width, height, 4, 2), raw(width, height)).png({ compressionLevel: 6 }).toBuffer()
  return { kind: "png10mb", label: "10 MB PNG", mime: "image/png", width, height, bytes: new Uint8Array(bytes) }
}

/** A small WebP: 800 x 600, a few tens of kilobytes. */
export const webpSmall = async (): Promise<BenchImage> => {
  const width = 800
  const height = 600
  const bytes = await sharp(scene(width, height, 6, 3), raw(width, height)).webp({ quality: 80 }).toBuffer()
  return { kind: "webpSmall", label: "small WebP", mime: "image/webp", width, height, bytes: new Uint8Array(bytes) }
}

/** A small animated GIF, 480 x 360, 4 frames (the service describes the first). */
export const gifAnimated = async (): Promise<BenchImage> => {
  const width = 480
  const height = 360
  const frames = 4
  const next = prng(4)
  const pixels = new Uint8Array(width * height * frames * 4)
  for (let i = 0; i < pixels.length; i += 4) {
    const p = i / 4
    const x = p % width
    const y = Math.floor(p / width) % height
    const frame = Math.floor(p / (width * height))
    const n = next()
    pixels[i] = ((255 * x) / width + 40 * frame + (n & 7)) % 256
    pixels[i + 1] = ((255 * y) / height + ((n >>> 8) & 7)) % 256
    pixels[i + 2] = (128 + ((n >>> 16) & 7)) % 256
    pixels[i + 3] = 255
  }
  const bytes = await sharp(pixels, { raw: { width, height: height * frames, channels: 4, pageHeight: height } }).gif().toBuffer()
  return { kind: "gifAnimated", label: "animated GIF (4 frames)", mime: "image/gif", width, height, bytes: new Uint8Array(bytes) }
}

/** The three inputs of benchmark 1: a 12-MP JPEG, a 10 MB PNG, a small WebP. */
export const allImages = async (): Promise<ReadonlyArray<BenchImage>> => [await jpeg12mp(), await png10mb(), await webpSmall()]
