import { useEffect, useState } from 'preact/hooks';
import { me } from './engagement.js';
import { loadView } from './store.js';
import { t } from './strings.js';
import * as team from './team.js';
import type { Member, MemberRole } from './team.js';
import { Field, FormProblem, text, useSubmit, when } from './widgets.js';

/** The workspace's team: everyone sees who is in it; owners invite, change roles and remove. */
export function TeamView() {
  useEffect(() => loadView(team.loadTeam), []);
  const [status, setStatus] = useState('');
  return (
    <div class="cols">
      <section class="box" aria-labelledby="members-title">
        <h2 id="members-title">{t.members}</h2>
        <p class="muted">{t.roleHelp}</p>
        <ul id="members" class="people">
          {team.members.value.map((m) => (
            <MemberRow key={m.userId} member={m} onDone={setStatus} />
          ))}
        </ul>
        <p role="status" id="team-status" class="muted">
          {status}
        </p>
      </section>
      {team.runsTeam.value && <Invitations />}
    </div>
  );
}

function MemberRow({ member, onDone }: { member: Member; onDone: (status: string) => void }) {
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState('');
  const self = member.userId === me.value?.id;
  const act = async (run: () => Promise<void>, done: string): Promise<boolean> => {
    setProblem('');
    try {
      await run();
      onDone(done);
      return true;
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
      return false;
    }
  };
  const canRemove = team.runsTeam.value || self;
  const roleId = `role-${member.userId}`;
  return (
    <li id={`member-${member.userId}`}>
      <span class="who">
        {member.name}
        {self ? t.you : ''}
      </span>
      <span class="muted">{member.email}</span>
      {team.runsTeam.value ? (
        <span>
          <label for={roleId} class="visually-hidden">
            {t.roleOf(member.name)}
          </label>
          <select
            id={roleId}
            value={member.role}
            onChange={(e) => {
              const select = e.currentTarget;
              const role = select.value as MemberRole;
              // A refused change (the last owner) puts the select back to the role the server kept.
              void act(() => team.changeRole(member.userId, role), t.roleChanged(member.name, t.roles[role])).then((ok) => ok || (select.value = member.role));
            }}
          >
            {team.MEMBER_ROLES.map((role) => (
              <option key={role} value={role}>
                {t.roles[role]}
              </option>
            ))}
          </select>
        </span>
      ) : (
        <span>{t.roles[member.role]}</span>
      )}
      {canRemove && !asking && (
        <button type="button" id={`remove-${member.userId}`} onClick={() => setAsking(true)}>
          {self ? t.leave : t.remove(member.name)}
        </button>
      )}
      {asking && (
        <span role="group" aria-label={self ? t.reallyLeave : t.reallyRemove(member.name)} class="confirm">
          <span>{self ? t.reallyLeave : t.reallyRemove(member.name)}</span>
          <button
            type="button"
            class="danger"
            ref={(button) => button?.focus()}
            onClick={() => void act(() => (self ? team.leave(member.userId) : team.removeMember(member.userId)), t.removed(member.name))}
          >
            {self ? t.yesLeave : t.yesRemove}
          </button>
          <button type="button" onClick={() => setAsking(false)}>
            {t.cancel}
          </button>
        </span>
      )}
      {problem && <FormProblem id={`member-problem-${member.userId}`} message={problem} />}
    </li>
  );
}

function Invitations() {
  const [sent, setSent] = useState('');
  const form = useSubmit(
    (data) => team.invite(text(data, 'email'), text(data, 'role') as MemberRole),
    (_done, element) => {
      setSent(t.invited(text(new FormData(element), 'email')));
      element.reset();
    },
  );
  const roleProblem = form.issues.find((issue) => issue.path === 'role')?.message;
  return (
    <section class="box" aria-labelledby="invite-title">
      <h2 id="invite-title">{t.invite}</h2>
      <form id="invite" class="stack" onSubmit={form.onSubmit} noValidate>
        <Field id="invite-email" name="email" label={t.email} type="email" autocomplete="off" issues={form.issues} />
        <p class="field">
          <label for="invite-role">{t.role}</label>
          <select id="invite-role" name="role" defaultValue="agent" aria-invalid={roleProblem ? 'true' : undefined}>
            {team.MEMBER_ROLES.map((role) => (
              <option key={role} value={role}>
                {t.roles[role]}
              </option>
            ))}
          </select>
          {roleProblem && <span class="field-error">{roleProblem}</span>}
        </p>
        {form.message && <FormProblem id="invite-problem" message={form.message} />}
        <button type="submit" disabled={form.busy}>
          {t.sendInvitation}
        </button>
        <p role="status" class="muted">
          {sent}
        </p>
      </form>
      <h3 id="invitations-title">{t.openInvitations}</h3>
      <ul id="invitations" class="people" aria-labelledby="invitations-title">
        {team.invitations.value.map((invitation) => (
          <li key={invitation.id}>
            <span class="who">{invitation.email}</span>
            <span class="muted">{t.invitedAs(t.roles[invitation.role], when(invitation.expiresAt))}</span>
            <button type="button" onClick={() => void team.revokeInvitation(invitation.id).then(() => setSent(''), (err: unknown) => setSent(String(err)))}>
              {t.revoke(invitation.email)}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The logged-in member's own account: who they are, their password. */
export function AccountView() {
  const [done, setDone] = useState('');
  const form = useSubmit(
    (data) => team.changePassword(text(data, 'currentPassword'), text(data, 'newPassword')),
    (_done, element) => {
      element.reset();
      setDone(t.passwordChanged);
    },
  );
  return (
    <section class="box" aria-labelledby="account-title">
      <h2 id="account-title">{t.account}</h2>
      {me.value && <p id="signed-in-as">{t.signedInAs(me.value.name, me.value.email)}</p>}
      <h3 id="password-title">{t.changePassword}</h3>
      <form id="change-password" class="stack" aria-labelledby="password-title" onSubmit={form.onSubmit} noValidate>
        <input type="text" name="username" autocomplete="username" value={me.value?.email ?? ''} hidden readOnly />
        <Field id="current-password" name="currentPassword" label={t.currentPassword} type="password" autocomplete="current-password" issues={form.issues} />
        <Field id="new-password" name="newPassword" label={t.newPassword} type="password" autocomplete="new-password" issues={form.issues} />
        {form.message && <FormProblem id="password-problem" message={form.message} />}
        <button type="submit" disabled={form.busy}>
          {t.savePassword}
        </button>
        <p role="status" class="muted" id="password-status">
          {done}
        </p>
      </form>
    </section>
  );
}
