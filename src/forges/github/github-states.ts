/**
 * GitHub's deployment-status words for the neutral delivery states, both ways: GitHub ends a deployment with
 * `inactive` (neutral `gone`) and calls a deployment waiting to start `queued` (neutral `pending`). Pure.
 */
import type { DeliveryState } from '../../lifecycle/status-plan.js';
import type { StatusState } from './github-types.js';

const TO_GITHUB: Record<DeliveryState, StatusState> = {
  pending: 'queued',
  in_progress: 'in_progress',
  success: 'success',
  failure: 'failure',
  error: 'error',
  gone: 'inactive',
};

const FROM_GITHUB: Record<StatusState, DeliveryState> = {
  queued: 'pending',
  in_progress: 'in_progress',
  success: 'success',
  failure: 'failure',
  error: 'error',
  inactive: 'gone',
};

/** GitHub's word for a neutral state. */
export const toGitHubState = (state: DeliveryState): StatusState => TO_GITHUB[state];

/** The neutral state a GitHub status stands for; a word GitHub may add later reads as `error` (the bridge's own). */
export const fromGitHubState = (state: string): DeliveryState =>
  Object.hasOwn(FROM_GITHUB, state) ? FROM_GITHUB[state as StatusState] : 'error';
