import { useState } from 'preact/hooks';
import { t } from './strings.js';
import * as settings from './settings.js';
import { OtherProblems, problemOf, SettingField, Status, useLoad } from './settings-form.js';
import { text, useSubmit } from './widgets.js';

/** The appointments plugin (hours, zone, slot length) and its booking rules (overrides, buffers, caps). */
export function AppointmentsPanel() {
  const ready = useLoad(settings.loadAppointments);
  const plugin = settings.appointments.value;
  const rules = settings.rules.value;
  if (!ready || !plugin || !rules) return <p class="muted" aria-busy="true" />;
  return (
    <>
      <PluginForm current={plugin} />
      <RulesForm current={rules} />
    </>
  );
}

const DURATIONS = [15, 30, 45, 60];

function PluginForm({ current }: { current: settings.AppointmentSettings }) {
  const s = t.settingsText;
  const [done, setDone] = useState('');
  const form = useSubmit(
    (data) => {
      setDone('');
      const hours: Partial<Record<settings.Weekday, settings.Range[]>> = {};
      for (const day of settings.WEEKDAYS) {
        const ranges = settings.parseRanges(text(data, `businessHours.${day}`));
        if (ranges.length) hours[day] = ranges;
      }
      return settings.saveAppointments({
        enabled: data.get('enabled') === 'on',
        timezone: text(data, 'timezone').trim(),
        slotDurationMinutes: Number(text(data, 'slotDurationMinutes')),
        leadTimeHours: settings.numberOf(text(data, 'leadTimeHours')),
        bookingWindowDays: settings.numberOf(text(data, 'bookingWindowDays')),
        policyText: text(data, 'policyText').trim() || null,
        notificationEmail: text(data, 'notificationEmail').trim() || null,
        businessHours: hours,
      });
    },
    () => setDone(s.saved),
  );
  const durationProblem = problemOf(form.issues, 'slotDurationMinutes');
  return (
    <form id="appointments-form" class="stack" aria-labelledby="appointments-plugin-title" onSubmit={form.onSubmit} noValidate>
      <h3 id="appointments-plugin-title">{s.appointmentsPlugin}</h3>
      <p class="check">
        <input type="checkbox" id="appointments-enabled" name="enabled" defaultChecked={current.enabled} />
        <label for="appointments-enabled">{s.appointmentsEnabled}</label>
      </p>
      <SettingField id="appointments-timezone" name="timezone" label={s.timezone} help={s.timezoneHelp} value={current.timezone} issues={form.issues} />
      <p class="field">
        <label for="appointments-duration">{s.slotDuration}</label>
        <select id="appointments-duration" name="slotDurationMinutes" defaultValue={String(current.slotDurationMinutes)} aria-invalid={durationProblem ? 'true' : undefined}>
          {DURATIONS.map((minutes) => (
            <option key={minutes} value={String(minutes)}>
              {s.minutes(minutes)}
            </option>
          ))}
        </select>
        {durationProblem && <span class="field-error">{durationProblem}</span>}
      </p>
      <SettingField id="appointments-lead" name="leadTimeHours" kind="number" label={s.leadTime} value={current.leadTimeHours} issues={form.issues} />
      {/* Never activated, the plugin answers a window of 0 days (nothing bookable); the first save suggests 60. */}
      <SettingField id="appointments-window" name="bookingWindowDays" kind="number" label={s.bookingWindow} value={current.bookingWindowDays || 60} issues={form.issues} />
      <fieldset>
        <legend>{s.businessHours}</legend>
        <p class="muted" id="hours-help">
          {s.businessHoursHelp}
        </p>
        {settings.WEEKDAYS.map((day) => (
          <SettingField key={day} id={`hours-${day}`} name={`businessHours.${day}`} label={s.weekdays[day]} value={settings.formatRanges(current.businessHours[day])} placeholder="09:00-12:00, 13:00-17:00" issues={form.issues} />
        ))}
      </fieldset>
      <SettingField id="appointments-policy" name="policyText" kind="textarea" label={s.policyText} value={current.policyText} issues={form.issues} />
      <SettingField id="appointments-email" name="notificationEmail" kind="email" label={s.notificationEmail} value={current.notificationEmail} issues={form.issues} />
      <OtherProblems
        id="appointments-problem"
        issues={form.issues}
        message={form.message}
        names={['enabled', 'timezone', 'slotDurationMinutes', 'leadTimeHours', 'bookingWindowDays', 'businessHours', 'policyText', 'notificationEmail']}
      />
      <button type="submit" disabled={form.busy}>
        {s.save}
      </button>
      <Status id="appointments-status" text={done} />
    </form>
  );
}

function RulesForm({ current }: { current: settings.BookingRules }) {
  const s = t.settingsText;
  const [done, setDone] = useState('');
  const form = useSubmit(
    (data) => {
      setDone('');
      const cap = text(data, 'maxPerDay').trim();
      return settings.saveRules({
        dateOverrides: settings.parseOverrides(text(data, 'dateOverrides')),
        bufferBeforeMinutes: settings.numberOf(text(data, 'bufferBeforeMinutes')),
        bufferAfterMinutes: settings.numberOf(text(data, 'bufferAfterMinutes')),
        maxPerDay: cap ? settings.numberOf(cap) : null,
        cancelNoticeHours: settings.numberOf(text(data, 'cancelNoticeHours')),
        maxReschedules: settings.numberOf(text(data, 'maxReschedules')),
        reminders: text(data, 'reminders')
          .split(/[\s,]+/)
          .filter(Boolean)
          .map(settings.numberOf),
      });
    },
    () => setDone(s.saved),
  );
  return (
    <form id="rules-form" class="stack" aria-labelledby="rules-title" onSubmit={form.onSubmit} noValidate>
      <h3 id="rules-title">{s.bookingRules}</h3>
      <SettingField id="rules-overrides" name="dateOverrides" kind="textarea" rows={4} label={s.dateOverrides} help={s.dateOverridesHelp} value={settings.formatOverrides(current.dateOverrides)} issues={form.issues} />
      <SettingField id="rules-buffer-before" name="bufferBeforeMinutes" kind="number" label={s.bufferBefore} value={current.bufferBeforeMinutes} issues={form.issues} />
      <SettingField id="rules-buffer-after" name="bufferAfterMinutes" kind="number" label={s.bufferAfter} value={current.bufferAfterMinutes} issues={form.issues} />
      <SettingField id="rules-max-per-day" name="maxPerDay" kind="number" label={s.maxPerDay} help={s.maxPerDayHelp} value={current.maxPerDay} issues={form.issues} />
      <SettingField id="rules-cancel-notice" name="cancelNoticeHours" kind="number" label={s.cancelNotice} value={current.cancelNoticeHours} issues={form.issues} />
      <SettingField id="rules-max-reschedules" name="maxReschedules" kind="number" label={s.maxReschedules} value={current.maxReschedules} issues={form.issues} />
      <SettingField id="rules-reminders" name="reminders" label={s.reminders} help={s.remindersHelp} value={current.reminders.join(', ')} issues={form.issues} />
      <OtherProblems
        id="rules-problem"
        issues={form.issues}
        message={form.message}
        names={['dateOverrides', 'bufferBeforeMinutes', 'bufferAfterMinutes', 'maxPerDay', 'cancelNoticeHours', 'maxReschedules', 'reminders']}
      />
      <button type="submit" disabled={form.busy}>
        {s.save}
      </button>
      <Status id="rules-status" text={done} />
    </form>
  );
}
