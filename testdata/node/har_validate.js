// Validates a HAR document read from standard input against the HAR 1.2
// schema with har-validator (a HAR parser and validator Wraith did not
// write). Prints the entry count; exits 1 naming the problems.
const validator = require('har-validator');

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', async () => {
  try {
    const har = JSON.parse(input);
    await validator.har(har);
    console.log(JSON.stringify({ valid: true, entries: har.log.entries.length }));
  } catch (err) {
    console.error(JSON.stringify({ valid: false, message: err.message, errors: err.errors }, null, 1));
    process.exit(1);
  }
});
