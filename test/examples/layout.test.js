'use strict';
// The shipped examples as the editor draws them: no sticky note runs under a
// node (n8n draws a node about 100 × 100 from its position, over the note's
// text), and the AI support agent's note states the trigger's own settings.
const fs = require('fs');
const path = require('path');

const EXAMPLES = path.join(__dirname, '..', '..', 'examples');
const NODE_SIZE = 100;
/** n8n's default sticky note size, when the note has none of its own. */
const STICKY_DEFAULT = { width: 240, height: 160 };

const examples = fs
	.readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.map((file) => [file, JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'))]);

const isSticky = (node) => node.type === 'n8n-nodes-base.stickyNote';

/** The nodes drawn over a sticky note's rectangle. */
function nodesUnder(sticky, nodes) {
	const [x, y] = sticky.position;
	const width = sticky.parameters.width ?? STICKY_DEFAULT.width;
	const height = sticky.parameters.height ?? STICKY_DEFAULT.height;
	return nodes
		.filter((node) => !isSticky(node))
		.filter(({ position: [nx, ny] }) => nx < x + width && nx + NODE_SIZE > x && ny < y + height && ny + NODE_SIZE > y)
		.map((node) => node.name);
}

test.each(examples)('%s: no sticky note runs under a node', (_file, workflow) => {
	const overlaps = workflow.nodes.filter(isSticky).map((sticky) => [sticky.name, nodesUnder(sticky, workflow.nodes)]);
	expect(overlaps.filter(([, under]) => under.length > 0)).toEqual([]);
});

test('the AI support agent: its note states the trigger’s quiet period, step-aside period and hand-over limit', () => {
	const workflow = examples.find(([file]) => file === 'ai-support-agent.json')[1];
	const note = workflow.nodes.find(isSticky).parameters.content;
	const { options } = workflow.nodes.find((node) => node.type.endsWith('.omnichannelTrigger')).parameters;
	expect(note).toContain(`quiet for ${options.burstQuietSeconds} seconds`);
	expect(note).toContain(`within ${options.stepAsideMinutes} minutes`);
	expect(note).toContain(`at most ${options.handOverLimitHours} hours`);
});

test('the daily report: its Slack branch posts the report\'s text, disabled until a credential is chosen, and its note says so', () => {
	const workflow = examples.find(([file]) => file === 'daily-report.json')[1];
	const report = workflow.nodes.find((node) => node.type.endsWith('.omnichannel'));
	expect(report.parameters).toMatchObject({ resource: 'report', operation: 'get', includeText: true });
	const slack = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.slack');
	expect(slack).toMatchObject({ disabled: true, parameters: { text: '={{ $json.text }}' } });
	expect(slack.credentials).toBeUndefined();
	expect(workflow.connections['The total'].main[0].map((link) => link.node)).toContain(slack.name);
	expect(workflow.nodes.find(isSticky).parameters.content).toContain(`**${slack.name}** is disabled until you choose your Slack credential`);
});
