/**
 * A small SMTP server on loopback for the tests (RFC 5321 as far as nodemailer needs it: EHLO,
 * AUTH PLAIN, MAIL, RCPT, DATA, RSET, NOOP, QUIT), which keeps what it receives and refuses the
 * recipients named `refusedRecipient`.
 */
import { createServer } from "node:net"
import type { Socket } from "node:net"

export interface ReceivedMail {
  /** `user:password` of the AUTH PLAIN that came before, if any. */
  readonly login: string | undefined
  readonly from: string
  readonly recipients: ReadonlyArray<string>
  /** The message as sent (headers and body), dot-stuffing undone. */
  readonly raw: string
}

/** A header's value (first occurrence, unfolded). */
export const headerOf = (raw: string, name: string) => {
  const head = raw.slice(0, raw.indexOf("\r\n\r\n")).replace(/\r\n[ \t]+/g, " ")
  return new RegExp(`^${name}:[ \\t]*(.*)$`, "im").exec(head)?.[1]
}

/** The body, quoted-printable undone (nodemailer's choice for text with long lines). */
export const bodyOf = (raw: string) => {
  const body = raw.slice(raw.indexOf("\r\n\r\n") + 4)
  return /quoted-printable/i.test(headerOf(raw, "Content-Transfer-Encoding") ?? "")
    ? body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    : body
}

/** Recipients whose address starts with this are refused. */
export const refusedRecipient = "refused-"

export const startSmtp = () =>
  new Promise<{ readonly port: number; readonly received: Array<ReceivedMail>; readonly close: () => Promise<void> }>((resolve) => {
    const received: Array<ReceivedMail> = []
    const sockets = new Set<Socket>()
    const server = createServer((socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      let buffer = ""
      let login: string | undefined
      let from = ""
      let recipients: Array<string> = []
      let data: Array<string> | undefined
      const reply = (line: string) => socket.write(`${line}\r\n`)
      const command = (line: string) => {
        const verb = line.slice(0, 4).toUpperCase()
        if (verb === "EHLO" || verb === "HELO") return reply("250-test.local\r\n250 AUTH PLAIN")
        if (verb === "AUTH") {
          const [, user = "", pass = ""] = Buffer.from(line.split(" ")[2] ?? "", "base64").toString("utf8").split("\0")
          login = `${user}:${pass}`
          return reply("235 2.7.0 Authentication successful")
        }
        if (verb === "MAIL") {
          from = /<([^>]*)>/.exec(line)?.[1] ?? ""
          recipients = []
          return reply("250 OK")
        }
        if (verb === "RCPT") {
          const recipient = /<([^>]*)>/.exec(line)?.[1] ?? ""
          // As Postfix refuses a mailbox it does not know, quoting it.
          if (recipient.startsWith(refusedRecipient)) return reply(`550 5.1.1 <${recipient}>: Recipient address rejected: User unknown`)
          recipients.push(recipient)
          return reply("250 OK")
        }
        if (verb === "DATA") {
          data = []
          return reply("354 End data with <CR><LF>.<CR><LF>")
        }
        if (verb === "QUIT") {
          reply("221 Bye")
          return socket.end()
        }
        return reply("250 OK")
      }
      reply("220 test.local ESMTP")
      socket.on("data", (chunk) => {
        buffer += chunk.toString("utf8")
        for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
          const line = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (data === undefined) command(line)
          else if (line === ".") {
            received.push({ login, from, recipients, raw: data.join("\r\n") })
            data = undefined
            reply("250 OK: queued")
          } else data.push(line.startsWith("..") ? line.slice(1) : line)
        }
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resolve({
        port: typeof address === "object" && address !== null ? address.port : 0,
        received,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })
