// Drives the official stripe-node client against a twin. Its only session
// setting is the key: sk_test_x.wraith.SESSION. Prints what the twin said.
// Usage: node stripe_credential.js URL KEY
const Stripe = require('stripe');

const url = new URL(process.argv[2]);
const stripe = new Stripe(process.argv[3], {
  host: url.hostname,
  port: url.port,
  protocol: url.protocol.replace(':', ''),
  maxNetworkRetries: 0,
  telemetry: false,
});

(async () => {
  const created = await stripe.customers.create({ description: 'from stripe-node' });
  const read = await stripe.customers.retrieve(created.id);
  console.log(JSON.stringify({
    id: created.id,
    session: created.lastResponse.headers['x-wraith-session'],
    read_id: read.id,
    read_session: read.lastResponse.headers['x-wraith-session'],
    read_provenance: read.lastResponse.headers['x-wraith-provenance'],
  }));
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
