import { useEffect, useState } from 'preact/hooks';
import { hrefOf, navigate, route } from './router.js';
import { t } from './strings.js';
import * as team from './team.js';
import type { InvitationPreview } from './team.js';
import { Field, FormProblem, text, useSubmit } from './widgets.js';

/** The page a mail's link or the login form opened (`route.page`), shown logged in or not. */
export function PublicPage() {
  const { page, id } = route.value;
  if (page === 'forgot-password') return <ForgotPassword />;
  if (page === 'reset-password' && id) return <ResetPassword resetToken={id} />;
  if (page === 'invitation' && id) return <AcceptInvitation key={id} invitationToken={id} />;
  return <LoginLink />;
}

const LoginLink = () => (
  <p>
    <a href="#/">{t.toLogin}</a>
  </p>
);

function ForgotPassword() {
  const [sent, setSent] = useState(false);
  const form = useSubmit(
    (data) => team.requestReset(text(data, 'email')),
    () => setSent(true),
  );
  return (
    <section class="box narrow" aria-labelledby="forgot-title">
      <h2 id="forgot-title">{t.resetTitle}</h2>
      <p class="muted">{t.resetHelp}</p>
      <form id="forgot" class="stack" onSubmit={form.onSubmit} noValidate>
        <Field id="forgot-email" name="email" label={t.email} type="email" autocomplete="username" issues={form.issues} />
        {form.message && <FormProblem id="forgot-problem" message={form.message} />}
        <button type="submit" disabled={form.busy}>
          {t.sendResetLink}
        </button>
        <p role="status" id="forgot-status">
          {sent ? t.resetSent : ''}
        </p>
      </form>
      <LoginLink />
    </section>
  );
}

function ResetPassword({ resetToken }: { resetToken: string }) {
  const [done, setDone] = useState(false);
  const form = useSubmit(
    (data) => team.completeReset(resetToken, text(data, 'password')),
    () => setDone(true),
  );
  // A spent or expired link is the token's problem, not the password's: say so above the form.
  const linkProblem = form.issues.find((issue) => issue.path === 'token')?.message ?? form.message;
  return (
    <section class="box narrow" aria-labelledby="reset-title">
      <h2 id="reset-title">{t.newPasswordTitle}</h2>
      {done ? (
        <p role="status" id="reset-status">
          {t.passwordSet} <a href="#/">{t.toLogin}</a>
        </p>
      ) : (
        <form id="reset" class="stack" onSubmit={form.onSubmit} noValidate>
          <Field id="reset-password" name="password" label={t.newPassword} type="password" autocomplete="new-password" issues={form.issues} />
          {linkProblem && <FormProblem id="reset-problem" message={linkProblem} />}
          <button type="submit" disabled={form.busy}>
            {t.setPassword}
          </button>
        </form>
      )}
    </section>
  );
}

function AcceptInvitation({ invitationToken }: { invitationToken: string }) {
  const [preview, setPreview] = useState<InvitationPreview | null | 'gone'>(null);
  useEffect(() => {
    team.previewInvitation(invitationToken).then(setPreview, () => setPreview('gone'));
  }, [invitationToken]);
  if (preview === null) return <p role="status">…</p>;
  if (preview === 'gone') {
    return (
      <section class="box narrow" aria-labelledby="invitation-title">
        <h2 id="invitation-title">{t.invitationTitle}</h2>
        <p id="invitation-gone">{t.invitationGone}</p>
        <LoginLink />
      </section>
    );
  }
  return <JoinForm invitationToken={invitationToken} preview={preview} />;
}

function JoinForm({ invitationToken, preview }: { invitationToken: string; preview: InvitationPreview }) {
  const form = useSubmit(
    (data) =>
      team.acceptInvitation(
        invitationToken,
        preview.accountExists ? { password: text(data, 'password') } : { name: text(data, 'name'), password: text(data, 'password') },
        preview.workspace.id,
      ),
    () => navigate('chats'),
  );
  return (
    <section class="box narrow" aria-labelledby="invitation-title">
      <h2 id="invitation-title">{t.invitationTitle}</h2>
      <p id="invitation-what">{t.invitationTo(preview.workspace.name, t.roles[preview.role])}</p>
      <p class="muted">{t.invitationEmail(preview.email)}</p>
      {preview.accountExists && <p>{t.existingAccount}</p>}
      <form id="join" class="stack" onSubmit={form.onSubmit} noValidate>
        <input type="text" name="username" autocomplete="username" value={preview.email} hidden readOnly />
        {!preview.accountExists && <Field id="join-name" name="name" label={t.yourName} autocomplete="name" issues={form.issues} />}
        <Field
          id="join-password"
          name="password"
          label={preview.accountExists ? t.accountPassword : t.choosePassword}
          type="password"
          autocomplete={preview.accountExists ? 'current-password' : 'new-password'}
          issues={form.issues}
        />
        {form.message && <FormProblem id="join-problem" message={form.message} />}
        <button type="submit" disabled={form.busy}>
          {t.join}
        </button>
      </form>
      <p>
        <a href={hrefOf('forgot-password')}>{t.forgotPassword}</a>
      </p>
    </section>
  );
}
