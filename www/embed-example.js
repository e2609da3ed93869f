// The host side of the embed example: drives the RolloutScope iframe with postMessage and
// shows the step changes it reports. Loaded as a file so the page needs no inline script.
const frame = document.getElementById('rolloutscope');
const send = (action, extra = {}) =>
  frame.contentWindow.postMessage({ type: 'rolloutscope', action, ...extra }, '*');

document.getElementById('host-previous').addEventListener('click', () => send('previous'));
document.getElementById('host-next').addEventListener('click', () => send('next'));
document.getElementById('host-goto').addEventListener('click', () => send('goto', { step: 40 }));
document.getElementById('host-play').addEventListener('click', () => send('play'));
document.getElementById('host-pause').addEventListener('click', () => send('pause'));
document.getElementById('host-load').addEventListener('click', () => send('load', { scenario: 'recreate' }));

window.addEventListener('message', (event) => {
  if (event.source !== frame.contentWindow || event.data?.type !== 'rolloutscope:step') return;
  const { step, stage, narration } = event.data;
  document.getElementById('host-step').textContent = `step ${step} (stage ${stage})`;
  const line = document.createElement('div');
  line.textContent = `step ${step}, stage ${stage}: ${narration}`;
  const log = document.getElementById('host-log');
  log.append(line);
  log.scrollTop = log.scrollHeight;
});
