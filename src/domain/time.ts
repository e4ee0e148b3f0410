/** One day in milliseconds (key lifetimes, usage per day). */
export const dayMillis = 24 * 60 * 60 * 1000
