'use strict';
// The smallest community webhook trigger: what any trigger from a community
// package costs n8n per request. n8n treats it as it treats ours (an
// expression isolate per request unless lazy isolates are on), so the intake
// bench can tell what our verification and de-duplication add from what n8n
// charges every community trigger. No verification, no de-duplication: one
// execution per request, answered 200 once the execution started.
class BenchIntakeTrigger {
	constructor() {
		this.description = {
			displayName: 'Bench Intake Trigger',
			name: 'benchIntakeTrigger',
			group: ['trigger'],
			// Not 1: n8n evaluates an expression for every request to a version-1
			// webhook node (webhook-helpers.js, parseRequestBody), which under lazy
			// isolates costs one isolate per request. Our trigger's current version
			// (2) does not pay it either; a peer paying it would flatter us.
			version: 2,
			description: 'Starts one execution per POST request (bench only)',
			defaults: { name: 'Bench Intake Trigger' },
			inputs: [],
			outputs: ['main'],
			webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
			properties: [],
		};
	}

	async webhook() {
		return { workflowData: [[{ json: this.getBodyData() }]] };
	}
}

module.exports = { BenchIntakeTrigger };
