import t from 'tap';
import { webHostOf } from '../../../src/forges/github/github-settings.js';

t.test('webHostOf', (t) => {
  const rows: Array<[string, string]> = [
    ['https://api.github.com', 'github.com'],
    ['https://api.github.com/', 'github.com'],
    ['https://API.GitHub.com', 'github.com'],
    ['https://ghe.example.com/api/v3', 'ghe.example.com'],
    ['https://ghe.example.com:8443/api/v3/', 'ghe.example.com:8443'],
    ['http://127.0.0.1:40123', '127.0.0.1:40123'],
  ];
  for (const [url, want] of rows) t.equal(webHostOf(url), want, url);
  t.throws(() => webHostOf('api.github.com'), 'a host without scheme is not a URL');
  t.end();
});
