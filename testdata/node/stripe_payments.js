// Drives the official stripe-node client through Stripe's accept-a-payment
// and refund flow against a twin: a payment confirmed on create, refunded
// in two parts, then a third refund refused. Prints what the twin said.
// Usage: node stripe_payments.js URL KEY
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
  const pi = await stripe.paymentIntents.create({
    amount: 2000, currency: 'usd', payment_method: 'pm_card_visa', confirm: true,
  });
  const charge = await stripe.charges.retrieve(pi.latest_charge);
  const first = await stripe.refunds.create({ payment_intent: pi.id, amount: 500 });
  const second = await stripe.refunds.create({ charge: charge.id });
  const refunded = await stripe.charges.retrieve(charge.id);
  let third = null;
  try {
    await stripe.refunds.create({ payment_intent: pi.id, amount: 100 });
  } catch (err) {
    third = { status: err.statusCode, code: err.code, message: err.message };
  }
  console.log(JSON.stringify({
    status: pi.status,
    amount_received: pi.amount_received,
    charge: charge.id,
    charge_status: charge.status,
    captured: charge.captured,
    refunds: [first.amount, second.amount],
    amount_refunded: refunded.amount_refunded,
    refunded: refunded.refunded,
    third,
  }));
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
