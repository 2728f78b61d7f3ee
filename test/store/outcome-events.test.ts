/** The spine's outcome-recorded event: told once per new success or failure, in the write's transaction; nothing else. */
import t, { type Test } from 'tap';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { onOutcomeRecorded, type OutcomeRecorded } from '../../src/store/outcome-events.js';
import { SHOP_ORIGIN, shopDeployment } from '../harness/recorded-deployments.js';
import { openDatabase } from '../harness/database.js';

function open(t: Test) {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const told: OutcomeRecorded[] = [];
  const off = onOutcomeRecorded(db, (e) => void told.push(e));
  const deployments = new DeploymentStore(db);
  const id = shopDeployment('a');
  deployments.insertProvisional(id, SHOP_ORIGIN, 100);
  deployments.setDeploymentId(id, 7, null, 110);
  return { db, told, off, deployments, id };
}

t.test('a success or failure the row did not show yet: once, with the row and its first-seen time', (t) => {
  const { told, deployments, id } = open(t);
  deployments.setState(id, 'in_progress', 'rolling', 120);
  t.same(told, [], 'not an outcome');
  deployments.setState(id, 'success', 'live', 200);
  deployments.setState(id, 'success', 'live again', 210);
  deployments.setState(id, 'failure', 'failed', 300);
  t.match(told, [
    { forge: 'github', repo: 'shop', sha: id.sha, deploymentName: id.deploymentName, startedAt: 100, outcome: 'success', at: 200 },
    { outcome: 'failure', at: 300 },
  ]);
  t.equal(told.length, 2, 'the same state twice is one outcome');
  t.end();
});

t.test("a listener that throws undoes the state's write; unsubscribed, it is told nothing", (t) => {
  const { db, told, off, deployments, id } = open(t);
  off();
  const stop = onOutcomeRecorded(db, () => {
    throw new Error('disk full');
  });
  t.throws(() => deployments.setState(id, 'success', 'live', 200), /disk full/);
  t.equal(deployments.get(id)?.state, null, 'the state was not written either');
  stop();
  deployments.setState(id, 'success', 'live', 210);
  t.equal(deployments.get(id)?.state, 'success', 'no listener: the write alone');
  t.same(told, [], 'unsubscribed: told nothing');
  t.end();
});
