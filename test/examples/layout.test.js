'use strict';
// The example workflows as n8n lays them out: no sticky note covers a node.
// n8n draws a node from its position about 100 × 100 pixels (a trigger or a
// node with notes under it a little more), and a sticky note from its
// position with its width and height.
const fs = require('fs');
const path = require('path');

const EXAMPLES = path.join(__dirname, '..', '..', 'examples');
const NODE_SIZE = 100;

const files = fs.readdirSync(EXAMPLES).filter((file) => file.endsWith('.json')).sort();

test.each(files)('%s: no sticky note overlaps a node', (file) => {
	const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
	const stickies = workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote');
	const nodes = workflow.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote');
	const overlaps = [];
	for (const sticky of stickies) {
		const [x, y] = sticky.position;
		const { width = 240, height = 160 } = sticky.parameters;
		for (const node of nodes) {
			const [nx, ny] = node.position;
			const apart = nx >= x + width || nx + NODE_SIZE <= x || ny >= y + height || ny + NODE_SIZE <= y;
			if (!apart) overlaps.push(`${sticky.name} / ${node.name}`);
		}
	}
	expect(overlaps).toEqual([]);
});
