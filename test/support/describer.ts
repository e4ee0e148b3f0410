/** Describers and prepared images outside a request, for tests that hold the image anyway. */
import { Effect } from "effect"
import type { DescribeRequest } from "../../src/domain/describe.ts"
import type { DescriberShape } from "../../src/services/Describer.ts"
import { Images } from "../../src/services/Images.ts"

/** Both steps of a describer at once (a request runs them apart: services/describeImage.ts). */
export const describeWhole = (describer: DescriberShape, request: DescribeRequest) => Effect.flatten(describer.start(request))

/** `Images.prepare` with a copy of the pixels (not a view: a Buffer's `slice` is one), which the closing scope does not release. */
export const preparedCopy = (bytes: Uint8Array, owner = "an account") =>
  Effect.scoped(Effect.flatMap(Images, (images) =>
    Effect.map(images.prepare(bytes, owner), (image) => ({ ...image, pixels: new Uint8Array(image.pixels) }))))
