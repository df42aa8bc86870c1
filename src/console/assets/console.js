/* global document, fetch, setTimeout */
// The console's live parts: the status table refreshes itself, a redrive shows its progress.
(function () {
  'use strict';

  function sparkline(values, limit) {
    var w = 180,
      h = 28,
      max = Math.max(limit || 0, 1);
    values.forEach(function (v) {
      if (v > max) max = v;
    });
    var step = values.length > 1 ? w / (values.length - 1) : w;
    var points = values.map(function (v, i) {
      return (i * step).toFixed(1) + ',' + (h - (v / max) * h).toFixed(1);
    });
    var ns = 'http://www.w3.org/2000/svg';
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('width', w);
    svg.setAttribute('height', h);
    var line = document.createElementNS(ns, 'polyline');
    line.setAttribute('points', points.join(' '));
    line.setAttribute('fill', 'none');
    line.setAttribute('stroke', '#2f6fdf');
    svg.appendChild(line);
    return svg;
  }

  function cell(text, className) {
    var td = document.createElement('td');
    if (className) td.className = className;
    td.textContent = text;
    return td;
  }

  function renderStatus(table, data) {
    document.getElementById('replicas').textContent = String(data.replicas);
    var hanging = [];
    data.operations.forEach(function (o) {
      (o.hanging || []).forEach(function (h) {
        hanging.push(o.operation + ' partition ' + h);
      });
    });
    var banner = document.getElementById('hanging');
    if (banner) {
      banner.hidden = hanging.length === 0;
      document.getElementById('hanging-list').textContent = hanging.join('; ');
    }
    var body = table.querySelector('tbody');
    body.textContent = '';
    data.operations.forEach(function (o) {
      var tr = document.createElement('tr');
      tr.dataset.operation = o.operation;
      tr.appendChild(cell(o.operation));
      tr.appendChild(cell(o.callsPerSecond.toFixed(1) + ' / ' + o.ratePerSecond, 'rate'));
      var chart = cell('', 'chart');
      chart.appendChild(sparkline(o.chart, o.ratePerSecond));
      tr.appendChild(chart);
      tr.appendChild(cell(o.inFlight === null ? '—' : String(o.inFlight)));
      tr.appendChild(cell(o.breakers.join(', ')));
      tr.appendChild(cell(o.paused.join('; ') || '—', 'paused'));
      tr.appendChild(cell(o.lag === null ? '—' : String(o.lag), 'lag'));
      tr.appendChild(
        cell(o.callsThisHour + ' / ' + (o.spendCapPerHour === null ? '—' : o.spendCapPerHour), 'hour'),
      );
      tr.appendChild(
        cell(
          Object.keys(o.deadLetters)
            .map(function (k) {
              return k + ': ' + o.deadLetters[k];
            })
            .join(', '),
        ),
      );
      body.appendChild(tr);
    });
    renderLanes(data);
  }

  // Each operation's lanes: calls/s, calls waiting in the limiter, the oldest one's wait.
  function renderLanes(data) {
    var table = document.getElementById('lanes');
    if (!table) return;
    var body = table.querySelector('tbody');
    body.textContent = '';
    data.operations.forEach(function (o) {
      (o.lanes || []).forEach(function (l) {
        var tr = document.createElement('tr');
        // Not data-operation: a lookup of an operation's status row finds that row only.
        tr.dataset.laneOf = o.operation;
        tr.dataset.lane = l.lane;
        tr.appendChild(cell(o.operation));
        tr.appendChild(cell(l.lane));
        tr.appendChild(cell(l.callsPerSecond.toFixed(1), 'calls'));
        tr.appendChild(cell(String(l.queued), 'queued'));
        tr.appendChild(cell(l.queued === 0 ? '—' : l.oldestWaitSeconds.toFixed(1) + ' s', 'oldest'));
        body.appendChild(tr);
      });
    });
  }

  function poll(url, every, onData) {
    function tick() {
      fetch(url, { credentials: 'same-origin' })
        .then(function (r) {
          return r.ok ? r.json() : null;
        })
        .then(function (data) {
          if (data && onData(data) !== false) setTimeout(tick, every);
        })
        .catch(function () {
          setTimeout(tick, every * 2);
        });
    }
    tick();
  }

  function renderJob(data) {
    document.getElementById('job-state').textContent = data.state;
    document.getElementById('job-count').textContent = String(data.lines.length);
    document.getElementById('job-error').textContent = data.error || '';
    var list = document.getElementById('job-lines');
    list.textContent = '';
    data.lines.forEach(function (l) {
      var li = document.createElement('li');
      li.className = 'job-line';
      li.textContent = l.action + ' ' + l.deadLetter + (l.reason ? ': ' + l.reason : '') + ' ';
      if (l.requestId) {
        var a = document.createElement('a');
        a.href = '/console/trail?requestId=' + encodeURIComponent(l.requestId);
        a.textContent = 'trail of ' + l.requestId;
        li.appendChild(a);
      }
      list.appendChild(li);
    });
    return data.state === 'running';
  }

  document.addEventListener('DOMContentLoaded', function () {
    var table = document.getElementById('status');
    if (table)
      poll(table.dataset.source, 2000, function (data) {
        renderStatus(table, data);
      });
    var job = document.getElementById('job');
    if (job) poll(job.dataset.progress, 500, renderJob);
  });
})();
