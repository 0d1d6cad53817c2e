'use strict';
// Which methods exist for a path, so an existing path with the wrong method
// answers 405 (with Allow) instead of 404.

class RouteTable {
	constructor() {
		/** @type {{ regex: RegExp, method: string }[]} */
		this.routes = [];
	}

	/** @param {string} pattern e.g. "/api/public/v1/contacts/:id" @param {string} method */
	add(pattern, method) {
		const source = pattern
			.split('/')
			.map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
			.join('/');
		this.routes.push({ regex: new RegExp(`^${source}/?$`), method });
	}

	/** @param {string} url request URL (query string ignored) @returns {string[]} */
	methodsFor(url) {
		const path = url.split('?')[0];
		const methods = new Set();
		for (const route of this.routes) if (route.regex.test(path)) methods.add(route.method);
		return [...methods];
	}
}

/** "GET /contacts/:id" under a prefix -> "GET /contacts/{id}" (the stats label). */
function routeLabel(method, url) {
	return `${method} ${url.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
}

module.exports = { RouteTable, routeLabel };
