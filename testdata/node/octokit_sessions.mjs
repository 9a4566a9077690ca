// Drives the official Octokit client against the github twin without a
// session header: by the base URL's /__s/SESSION prefix ("path") or by a
// token ending in .wraith.SESSION ("credential"). Prints what the twin said.
// Usage: node octokit_sessions.mjs URL path|credential SESSION
import { Octokit } from '@octokit/rest';

const [url, mode, session] = process.argv.slice(2);
const octokit = mode === 'path'
  ? new Octokit({ baseUrl: `${url}/__s/${session}`, auth: 'ghp_x', request: { retries: 0 } })
  : new Octokit({ baseUrl: url, auth: `ghp_x.wraith.${session}` });

try {
  const repo = await octokit.rest.repos.createForAuthenticatedUser({ name: 'octo-' + mode });
  const issue = await octokit.rest.issues.create({ owner: repo.data.owner.login, repo: repo.data.name, title: 'from octokit' });
  const read = await octokit.rest.issues.get({ owner: repo.data.owner.login, repo: repo.data.name, issue_number: issue.data.number });
  console.log(JSON.stringify({
    repo: repo.data.full_name,
    sessions: [repo.headers['x-wraith-session'], issue.headers['x-wraith-session'], read.headers['x-wraith-session']],
    number: read.data.number,
    read_provenance: read.headers['x-wraith-provenance'],
  }));
} catch (err) {
  console.error(err);
  process.exit(1);
}
