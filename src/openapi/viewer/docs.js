// Starts Swagger UI over this server's OpenAPI document (built as-is into public/docs by
// scripts/build-widget.mjs). The plugin below adjusts Swagger UI's markup, through its own component
// wrapping, where axe-core finds WCAG violations that CSS cannot fix (docs.css has the colours).
(function () {
  function accessibility(system) {
    var h = system.React.createElement;
    return {
      wrapComponents: {
        // An operation's summary is one <button>; a deep link inside it is a link nested in a button. The
        // operation's link stays reachable from its tag's link and the address bar (deepLinking).
        DeepLink: function (Original) {
          return function (props) {
            var inOperation = typeof props.path === 'string' && props.path.indexOf('/') >= 0;
            return h(Original, Object.assign({}, props, inOperation ? { enabled: false } : {}));
          };
        },
        // The title is an <h1> and the tags are <h3>: an <h2> keeps the outline without skipped levels.
        // The information block is the page's banner, so no content lies outside a landmark.
        InfoContainer: function (Original) {
          return function (props) {
            return h('div', { role: 'banner' }, h(Original, props));
          };
        },
        operations: function (Original) {
          return function (props) {
            return h('div', null, h('h2', { className: 'hearth-visually-hidden' }, 'Operations'), h(Original, props));
          };
        },
        // The schemas block's title is an <h4>; after the webhooks' <h2> it would skip a level.
        Models: function (Original) {
          return function (props) {
            return h('div', null, h('h3', { className: 'hearth-visually-hidden' }, 'Data models'), h(Original, props));
          };
        },
        // The servers <select> sits in an empty <label>: name it, and make its block a named region.
        ServersContainer: function (Original) {
          return function (props) {
            var name = function (element) {
              var select = element && element.querySelector('select');
              if (select) select.setAttribute('aria-label', 'Server');
            };
            return h('div', { role: 'region', 'aria-label': 'Servers', ref: name }, h(Original, props));
          };
        },
        // Each operation's responses table is a role=region: give each its operation's name, so the
        // landmarks stay distinguishable.
        responses: function (Original) {
          return function (props) {
            var name = function (element) {
              var table = element && element.querySelector('table[role="region"]');
              var operation = element && element.closest('.opblock');
              if (!table || !operation) return;
              var summary = operation.querySelector('.opblock-summary-method');
              var path = operation.querySelector('.opblock-summary-path');
              table.setAttribute('aria-label', 'Responses of ' + (summary ? summary.textContent : '') + ' ' + (path ? path.textContent : ''));
            };
            return h('div', { ref: name }, h(Original, props));
          };
        },
      },
    };
  }

  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [accessibility],
    layout: 'BaseLayout',
  });
})();
