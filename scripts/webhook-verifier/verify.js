// Verifies Standard Webhooks messages with the specification's reference
// implementation (the standardwebhooks npm package). Reads JSON lines on
// stdin, {"secret", "headers", "body"}, and writes one line per message:
// "ok <type>" when the signature verifies, "bad <error>" when not.
const { Webhook } = require("standardwebhooks");
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const m = JSON.parse(line);
  try {
    const payload = new Webhook(m.secret).verify(m.body, m.headers);
    console.log("ok " + payload.type);
  } catch (e) {
    console.log("bad " + String(e.message || e).replace(/\n/g, " "));
  }
});
