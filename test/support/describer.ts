/** Describers and prepared images outside a request, for tests that hold the image anyway. */
import { Effect } from "effect"
import type { AsUploadedFormat } from "../../src/domain/asUploaded.ts"
import type { DescribeRequest } from "../../src/domain/describe.ts"
import type { DescriberShape } from "../../src/services/Describer.ts"
import { Images } from "../../src/services/Images.ts"

/** Both steps of a describer at once (a request runs them apart: services/describeImage.ts). */
export const describeWhole = (describer: DescriberShape, request: DescribeRequest) => Effect.flatten(describer.start(request))

/**
 * `Images.prepare` with a copy of the pixels and of the file sent as uploaded (not a view: a
 * Buffer's `slice` is one), which the closing scope does not release.
 */
export const preparedCopy = (bytes: Uint8Array, owner = "an account", takesAsUploaded: ReadonlyArray<AsUploadedFormat> = []) =>
  Effect.scoped(Effect.flatMap(Images, (images) =>
    Effect.map(images.prepare(bytes, owner, takesAsUploaded), (image) => ({
      ...image,
      pixels: new Uint8Array(image.pixels),
      ...(image.asUploaded === undefined ? {} : { asUploaded: new Uint8Array(image.asUploaded) })
    }))))
