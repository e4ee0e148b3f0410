/** Rules several settings share: each refusal names its variable, and a value that makes no sense stops the start. */
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"

export const isHttpUrl = (value: string) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)

export const atLeastOne = (name: string) => Config.validate({ message: `${name} must be at least 1`, validation: (n: number) => n >= 1 })

/** A time-out or an interval, in whole milliseconds of at least 1. */
export const millisSetting = (name: string, fallback: number) =>
  Config.integer(name).pipe(Config.withDefault(fallback), atLeastOne(name), Config.map(Duration.millis))
