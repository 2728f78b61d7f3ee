import t from 'tap';
import { parseCommit } from '../../src/metadata/repository.js';

t.test('parseCommit', (t) => {
  const sha = '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';
  const rows: Array<[string, string | undefined]> = [
    [sha, sha],
    [sha.toUpperCase(), sha],
    [` ${sha}\n`, sha],
    ['07a684d', '07a684d'],
    ['07a684', undefined],
    [`${sha}0`, undefined],
    ['g7a684d59d1bc9a58e0c0d07ed480812b2b9a29e', undefined],
    [`main@sha1:${sha}`, undefined],
    [`sha1:${sha}`, undefined],
    ['v1.2.3', undefined],
    ['0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', undefined],
    ['', undefined],
  ];
  for (const [value, want] of rows) t.equal(parseCommit(value), want, JSON.stringify(value));
  t.end();
});
