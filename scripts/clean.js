'use strict';
// Removes the previous build so deleted sources never linger in dist/.
require('fs').rmSync(require('path').join(__dirname, '..', 'dist'), { recursive: true, force: true });
